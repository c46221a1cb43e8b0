"""A throwaway sixth target for tests/test_architecture.py: what adding a language takes
(this emitter module, this keyword module, one ``pyshade.targets.register`` call)."""
