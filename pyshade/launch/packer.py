"""The generated packer: one Python function per kernel specialisation that checks every
value parameter (struct fields and vector components included) and packs the
whole parameter block with one ``struct.Struct``."""

from __future__ import annotations

import struct
from typing import Any, Callable

from .. import types as T
from .values import _F32, _F32_MAX_ROUNDING, _U32, _fmt, _to_instance, _Where, scalar_bits, value_bytes

# ------------------------------------------------------------------ the generated packer

class _PackerBuilder:
    """Writes the Python source of one function that checks and packs a parameter block.

    Scalars (and scalar struct fields, recursively) get an inline fast check for
    the common Python type and fall back to the general checkers above; other
    values (vectors, matrices, arrays) go through ``value_bytes``. One
    ``struct.Struct`` packs the whole block, padding included.
    """

    def __init__(self, kname: str, size: int):
        self.kname = kname
        self.size = size
        self.fmt: list[tuple[int, str]] = []        # (offset, struct code)
        self.lines: list[str] = []
        self.vals: list[str] = []
        self.env: dict[str, Any] = {"_value_bytes": value_bytes, "_scalar_bits": scalar_bits,
                                    "_F32": _F32, "_U32": _U32}
        self.n = 0

    def name(self, obj: Any) -> str:
        self.n += 1
        key = f"_c{self.n}"
        self.env[key] = obj
        return key

    def value(self, expr: str, t: T.Type, off: int, param: str, path: str = "") -> None:
        """Check and pack the value of ``expr`` (of type ``t``) at ``off``."""
        self.n += 1
        var = f"v{self.n}"
        w = self.name(_Where(self.kname, param, t, path))
        if isinstance(t, T.StructType):
            cls = self.name(t.cls)
            self.lines.append(f"{var} = {expr}")
            self.lines.append(f"if {var}.__class__ is not {cls}:")
            # records, subclasses and wrong objects: checked and converted once, whole
            self.lines.append(f"    {var} = {self.name(_to_instance)}({var}, {w})")
            for f, ft in t.fields:
                self.value(f"{var}.{f}", ft, off + t.offsets[f], param,
                           f"{path}.{f}" if path else f)
            return
        if isinstance(t, (T.ScalarType, T.EnumType)):
            code = _fmt(t)
            self.lines.append(f"{var} = {expr}")
            self.lines.append(self._fast_scalar(var, t, w))
            self.fmt.append((off, code))
            self.vals.append(var)
            return
        size = t.size
        self.lines.append(f"{var} = _value_bytes({self.name(t)}, {expr}, {w})")
        self.fmt.append((off, f"{size}s"))
        self.vals.append(var)

    def length(self, index: int, off: int, axis: int = 0) -> None:
        """Pack the size of axis ``axis`` of buffer ``index`` at ``off`` (axis 0: its
        element count, ``len``)."""
        self.fmt.append((off, "I"))
        self.vals.append(f"bufs[{index}].shape[{axis}]")

    def _fast_scalar(self, var: str, t: T.Type, w: str) -> str:
        slow = f"{var} = _scalar_bits({self.name(t)}, {var}, {w})"
        if isinstance(t, T.EnumType):
            members = self.name(frozenset(t.members.values()))
            return (f"if not ({var}.__class__ is {self.name(t.cls)} or ({var}.__class__ is int "
                    f"and {var} in {members})): {slow}")
        assert isinstance(t, T.ScalarType)
        if t.kind == "bool":
            return f"{var} = 1 if {var} is True else 0 if {var} is False else " \
                   f"_scalar_bits({self.name(t)}, {var}, {w})"
        npt = self.name(t.np_dtype.type)
        if t.is_int:
            return (f"if {var}.__class__ is int and {t.min} <= {var} <= {t.max}: pass\n"
                    f"elif {var}.__class__ is {npt}: {var} = int({var})\n"
                    f"else: {slow}")
        if t == T.f32:
            return (f"if {var}.__class__ is float and -{_F32_MAX_ROUNDING!r} <= {var} <= "
                    f"{_F32_MAX_ROUNDING!r}: {var} = _U32.unpack(_F32.pack({var}))[0]\n"
                    f"else: {slow}")
        return slow

    def build(self) -> Callable[[tuple, list], bytes]:
        """The packer: ``pack(args, bufs) -> bytes`` of the block's size."""
        parts, pos = ["<"], 0
        for off, code in sorted(self.fmt):
            if off > pos:
                parts.append(f"{off - pos}x")
            parts.append(code)
            pos = off + struct.calcsize("<" + code)
        if self.size > pos:
            parts.append(f"{self.size - pos}x")
        order = [v for _, v in sorted(zip([o for o, _ in self.fmt], self.vals),
                                      key=lambda p: p[0])]
        self.env["_st"] = struct.Struct("".join(parts))
        body = "\n".join("    " + ln.replace("\n", "\n    ") for ln in self.lines) or "    pass"
        src = (f"def pack(args, bufs):\n{body}\n"
               f"    return _st.pack({', '.join(order)})\n")
        exec(compile(src, f"<pyshade packer {self.kname}>", "exec"), self.env)  # noqa: S102
        return self.env["pack"]
