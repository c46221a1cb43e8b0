"""Frontend: Python function -> specialised, lowered, typed Python AST."""
