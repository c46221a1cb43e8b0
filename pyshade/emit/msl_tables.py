"""Tables of the MSL emitter: type spellings, literal suffixes, invocation ids and atomics.

They have the names ``cuda_tables`` uses where the C++ base (``cpp.py``, ``cpp_ops.py``)
reads them through ``self.tables``.
"""

from __future__ import annotations

SCALARS = {"bool": "bool", "i32": "int", "u32": "uint", "f32": "float", "f16": "half",
           "i64": "long", "u64": "ulong"}
# Signed + - * << go through the unsigned type: MSL is C++, where signed overflow is
# undefined (and Apple's compiler is LLVM, which optimises on it); the kernel language wraps.
UNSIGNED = {"int": "uint", "long": "ulong"}
VEC_BASE = {"f32": "float", "i32": "int", "u32": "uint", "bool": "bool", "f16": "half"}
LITERAL_SUFFIX = {"i32": "", "u32": "u", "f32": "f", "i64": "l", "u64": "ul"}
COMPONENTS = "xyzw"
# MSL size and alignment of vectors of 2, 3, 4 four-byte elements: float3 is 16 bytes.
VEC_LAYOUT = {2: (8, 8), 3: (16, 16), 4: (16, 16)}
# MSL half arithmetic rounds each operation (IEEE); no intrinsics are needed.
HALF_OPS: dict[str, str] = {}
HALF_ABS = "abs"
# The bits of special floats, for literals (MSL has no inf/nan literal).
# No ``h`` suffix: the f16 value, exact in f32 (see tests/msl_host).
HALF_LITERAL = "half({}f)"
SPECIAL_FLOAT = {"f32": "as_type<float>({bits:#010x}u)", "f16": "as_type<half>(ushort({:#06x}u))"}

# Invocation ids: entry-point parameters with these attributes.
IDS = {"global_id": ("uint3", "thread_position_in_grid"),
       "local_id": ("uint3", "thread_position_in_threadgroup"),
       "group_id": ("uint3", "threadgroup_position_in_grid"),
       "num_groups": ("uint3", "threadgroups_per_grid"),
       "local_index": ("uint", "thread_index_in_threadgroup")}

# atomic_OP(buf, i, v) -> atomic_fetch_OP_explicit; exchange has its own name.
ATOMICS = {"add": "atomic_fetch_add_explicit", "sub": "atomic_fetch_sub_explicit",
           "min": "atomic_fetch_min_explicit", "max": "atomic_fetch_max_explicit",
           "and": "atomic_fetch_and_explicit", "or": "atomic_fetch_or_explicit",
           "xor": "atomic_fetch_xor_explicit", "exchange": "atomic_exchange_explicit"}
ATOMIC_TYPES = {"u32": "atomic_uint", "i32": "atomic_int"}
# Compare-and-swap returning the old value: a weak CAS may fail spuriously, so it loops
# while the element still holds the expected value.
CAS = """inline {t} {name}({space} {a}* p, {t} expected, {t} desired) {{
    {t} old = expected;
    while (!atomic_compare_exchange_weak_explicit(p, &old, desired, memory_order_relaxed,
                                                  memory_order_relaxed)) {{
        if (old != expected) break;
    }}
    return old;
}}"""
# Both flags: barrier() also orders the kernel's buffer stores within the group; the
# threadgroup flag alone where no buffer needs it (frontend/barrier_scope.py).
BARRIER = ("threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device)",)
BARRIER_SHARED = ("threadgroup_barrier(mem_flags::mem_threadgroup)",)
