"""What a program needs of the device that runs it, for the SPIR-V targets (GLSL and
HLSL on the ``vulkan`` device): shader features of the scalar types used, and shared
memory. A mixin of their emitters; the device calls ``check_device`` before it makes
a pipeline, so that a missing feature is a TranslationError at the Python line
that needs it instead of a driver that runs the code wrongly.
"""

from __future__ import annotations

import ast
from typing import Any

from .. import types as T
from ..frontend.source import make_error

# Scalar types -> the device feature (VulkanDevice.features) their shader code needs.
FEATURES = {"f16": "f16", "i64": "i64", "u64": "i64", "f64": "f64"}


def scalars_in(t: Any, seen: set) -> None:
    """Collect the scalar type names inside ``t`` (an enum's base is u32 or i32, which no
    feature needs)."""
    if isinstance(t, T.ScalarType):
        seen.add(t.name)
    elif isinstance(t, (T.VectorType, T.MatrixType)):
        seen.add(t.elem.name)
    elif isinstance(t, (T.ArrayType, T.BufferType)):
        scalars_in(t.elem, seen)
    elif isinstance(t, T.StructType):
        for _, ft in t.fields:
            scalars_in(ft, seen)


class DeviceChecks:
    """``collect_features`` (during ``header``) and ``check_device``; the class using it
    provides ``k``, ``prog``, ``all_types``, ``error`` and ``target``."""

    def collect_features(self) -> set:
        """The scalar type names the program uses; records in ``self.needs`` the first
        Python node that needs each device feature (buffers and parameters: the kernel)."""
        self.needs: dict[str, tuple[str, ast.AST]] = {}
        used: set = set()
        for t in self.all_types():
            scalars_in(t, used)
        for name in used & set(FEATURES):      # buffers and parameters: the kernel's line
            self.needs.setdefault(FEATURES[name], (self.k.src.filename, self.k.tree))
        for f in [self.k] + self.prog.funcs:
            for n in ast.walk(f.tree):
                here: set = set()
                scalars_in(getattr(n, "ps_type", None), here)
                for name in here & set(FEATURES):
                    self.needs.setdefault(FEATURES[name], (f.src.filename, n))
                used |= here
        return used

    def check_device(self, features: set, limits: dict, adapter: str = "this device") -> None:
        """Raise a TranslationError at the first Python line that needs what the device
        lacks: a shader feature (SwiftShader runs f16 code without it, giving zeros) or
        more shared memory than ``max_compute_shared_memory_size`` (CPU drivers run it
        anyway). Called by the vulkan device before it makes a pipeline."""
        for feat, (filename, node) in getattr(self, "needs", {}).items():
            if feat not in features:
                raise make_error(filename, node, f"{adapter} has no {feat} support in shaders "
                                 f"(Vulkan features: {', '.join(sorted(features)) or 'none'}): "
                                 "use another type or device", self.target)
        limit = limits.get("max_compute_shared_memory_size")
        total = sum(sh.type.size for sh in self.k.shared.values())
        if limit and total > limit:
            node = next((n for n in ast.walk(self.k.tree) if getattr(n, "ps_shared", False)),
                        self.k.tree)
            raise self.error(node, f"the shared arrays take {total} bytes, more than the "
                                   f"{limit} bytes of shared memory {adapter} has")
