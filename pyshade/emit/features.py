"""The shader features of the SPIR-V targets' headers (GLSL and HLSL on the ``vulkan``
device): which scalar types the program uses, so the header enables their extensions.

The device check itself no longer lives here: every target's ``Compiled.requirements``
(``frontend.requirements``) carries what the kernel needs, and each device checks it with
``artifact.check_requirements`` before it makes a pipeline.
"""

from __future__ import annotations

from ..frontend.requirements import FEATURES, program_features, scalars_in

__all__ = ["FEATURES", "DeviceChecks", "scalars_in"]


class DeviceChecks:
    """``collect_features`` (during ``header``); the class using it provides ``prog``."""

    def collect_features(self) -> set:
        """The scalar type names the program uses (in the declared types, ``all_types``,
        and every typed node)."""
        return set(program_features(self.prog)[0])  # type: ignore[attr-defined]
