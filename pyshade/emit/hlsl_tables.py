"""Spelling tables of the HLSL emitter, and the register assignment it shares with
the runtime.

Resource bindings of an emitted kernel (``Layout.buffers`` in binding order, then
the parameter block):

* Vulkan (SPIR-V from DXC): ``Buffer`` i is ``[[vk::binding(i, 0)]]``, the
  parameter block ``[[vk::push_constant]]`` or, when it does not fit the 128
  bytes every device has, a ``StructuredBuffer`` at binding ``len(buffers)``:
  exactly what ``runtime/vulkan.py`` binds for GLSL.
* D3D12 (DXIL): registers are numbered densely per class, in binding order, as
  compushady's root signature expects (its ``Compute(srv=[...], uav=[...],
  cbv=[...])`` lists start at ``t0``, ``u0``, ``b0``): a buffer the kernel only
  reads is ``register(tK)``, one it writes (or uses atomically) ``register(uK)``;
  the push-constant block is the constant buffer ``register(b0)``, the storage
  block the next ``t`` register. ``interface.registers`` computes this, for the
  emitter and for ``runtime/d3d12.py``.
"""

from __future__ import annotations

from ..interface import registers  # noqa: F401 - the HLSL emitter's registers

SCALARS = {"bool": "bool", "i32": "int", "u32": "uint", "f32": "float", "f16": "float16_t",
           "f64": "double", "i64": "int64_t", "u64": "uint64_t"}
# ``l``/``L`` alone would be 64-bit in DXC too; ``ll``/``ull`` say so in every C reading.
LITERAL_SUFFIX = {"i32": "", "u32": "u", "f32": "f", "f16": "h", "f64": "L", "i64": "ll",
                  "u64": "ull"}
# Invocation ids: (HLSL type, system-value semantic of the entry parameter). HLSL has
# no semantic for the group counts: they travel in the parameter block.
IDS = {"global_id": ("uint3", "SV_DispatchThreadID"),
       "local_id": ("uint3", "SV_GroupThreadID"),
       "group_id": ("uint3", "SV_GroupID"),
       "num_groups": ("uint3", None),
       "local_index": ("uint", "SV_GroupIndex")}
# bitcast(dst, x) of 32-bit types by (source, destination); integers of one width keep
# their bits through a value conversion, f64 goes through a generated helper.
BITCASTS = {("f32", "u32"): "asuint", ("f32", "i32"): "asint", ("u32", "f32"): "asfloat",
            ("i32", "f32"): "asfloat"}
# convert(T, x) of an f64 to a 32-bit integer goes through the 64-bit integer of the same
# signedness: DXC 1.7 writes ``uint(d)`` as OpFConvert to float, then OpConvertFToU, so
# 2147483647.5 gave 2147483648 (``bench/probes/dxc_f64_to_int_probe.py``).
F64_TO_INT_VIA = {"i32": "i64", "u32": "u64"}
# atomic_<op> -> Interlocked function (sub adds the negated value).
ATOMICS = {"add": "InterlockedAdd", "sub": "InterlockedAdd", "min": "InterlockedMin",
           "max": "InterlockedMax", "and": "InterlockedAnd", "or": "InterlockedOr",
           "xor": "InterlockedXor", "exchange": "InterlockedExchange"}
# GLSL.std.450's RoundEven, the ties-to-even rounding DXC does not write for round().
GLSL_STD_450_ROUND_EVEN = 2
