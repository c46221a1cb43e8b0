"""Sort keys: every u32, i32 and f32 element as a u32 whose unsigned order is the
order wanted, made and undone on the device.

Floats are not compared as floats: GPUs may flush subnormals in comparisons (NVIDIA
does), -0.0 < 0.0 is false, and NaN compares false with everything. Instead the bits
are mapped to a u32 key and every sort sorts u32 keys:

- ``KIND_U32``: the value itself; ``KIND_I32``: the bits with the sign bit flipped
  (i32 order becomes unsigned order).
- ``KIND_F32``: the IEEE total order (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN):
  negatives get all bits flipped (a larger magnitude gives a smaller key),
  non-negatives get the sign bit set. Only bits move, so every element keeps its
  exact bit pattern; ``from_keys`` moves the negative NaNs (which sort first) behind
  the positive ones, so that every NaN ends up last, as in ``numpy.sort``.
- ``KIND_F32_ARG`` (argsort): numpy's comparison order, where -0.0 equals 0.0 and
  every NaN is equal and last: -0.0 gets the key of 0.0, every NaN the largest key,
  so that a stable sort of the keys is ``numpy.argsort(kind="stable")``.

``key_of`` and ``word_of`` map one word; the kernels ``to_keys`` and ``from_keys`` use
them for the bitonic network, and the radix sort calls them in its first and last
passes instead (no pass of their own). A float sort by the radix sort still ends with
``from_keys``, which moves the negative NaNs.

The data are bound as u32 words whatever their type (``arr.view(np.uint32)``): an
f32 buffer could change bits on the way (the cpu device holds f32 values as Python
floats, which quiets signalling NaNs), while u32 words are only ever moved.
"""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import u32

KIND_U32 = 0
KIND_I32 = 1
KIND_F32 = 2
KIND_F32_ARG = 3

SIGN = 0x80000000
ABS = 0x7FFFFFFF
POS_INF = 0x7F800000
NEG_INF_KEY = 0x007FFFFF      # key of -inf (0xFF800000): only negative NaNs have smaller keys
PAD_KEY = 0xFFFFFFFF          # the largest key: padding sorts after every element

WG = 256


def kind_of(dtype: np.dtype, arg: bool = False) -> int:
    """The key kind of an element dtype (``arg``: argsort's float order)."""
    if dtype.kind == "u":
        return KIND_U32
    if dtype.kind == "i":
        return KIND_I32
    return KIND_F32_ARG if arg else KIND_F32


def key_of(b: u32, kind: u32) -> u32:
    """The key of the word ``b`` of ``kind`` (its unsigned order is the order wanted)."""
    if kind == KIND_U32:
        return b
    if kind == KIND_I32:
        return b ^ SIGN
    if kind == KIND_F32_ARG:
        if (b & ABS) > POS_INF:
            return u32(ABS | SIGN)            # every NaN: the largest key
        if b == SIGN:
            return u32(SIGN)                  # -0.0 ties with 0.0
    if (b & SIGN) != 0:
        return ~b
    return b | SIGN


def word_of(k: u32, kind: u32) -> u32:
    """The word of the key ``k`` of ``kind`` (not ``KIND_F32_ARG``, whose keys are not
    one to one): the inverse of ``key_of``."""
    if kind == KIND_U32:
        return k
    if kind == KIND_I32:
        return k ^ SIGN
    if (k & SIGN) != 0:
        return k ^ SIGN
    return ~k


@ps.kernel(workgroup_size=WG)
def to_keys(src: ps.Buffer[u32], keys: ps.Buffer[u32], n: u32, flip: u32,
            kind: ps.Const[int]) -> None:
    """``keys[i]`` = the key of the word ``src[i]`` xor ``flip`` for ``i < n``, and
    ``PAD_KEY`` for the padding up to ``len(keys)`` (``flip`` = all ones reverses the
    order, for a descending stable sort)."""
    i = ps.global_id().x
    if i < len(keys):
        k = u32(PAD_KEY)
        if i < n:
            k = key_of(src[i], u32(kind)) ^ flip
        keys[i] = k


@ps.kernel(workgroup_size=WG)
def from_keys(keys: ps.Buffer[u32], out: ps.Buffer[u32], n: u32, descending: u32,
              kind: ps.Const[int]) -> None:
    """``out[i]`` = the word of the i-th element of the sorted result.

    ``keys[:n]`` are sorted ascending. For ``KIND_F32`` the negative NaNs form a
    prefix (their keys are below the key of -inf) of length m, found by binary
    search, and are rotated to the end: the ascending result is ``keys[m:n] +
    keys[:m]``. ``descending`` reads that result backwards, so it is exactly its
    reverse."""
    i = ps.global_id().x
    if i < n:
        lo = u32(0)
        if kind == KIND_F32:
            hi = n
            while lo < hi:
                mid = lo + (hi - lo) // 2
                if keys[mid] < NEG_INF_KEY:
                    lo = mid + 1
                else:
                    hi = mid
        j = i
        if descending != 0:
            j = n - 1 - i
        src = j + lo
        if j >= n - lo:
            src = j - (n - lo)
        out[i] = word_of(keys[src], u32(kind))


@ps.kernel(workgroup_size=WG)
def iota(out: ps.Buffer[ps.i32]) -> None:
    """``out[i] = i`` for every element: the indices an argsort carries along."""
    i = ps.global_id().x
    if i < len(out):
        out[i] = ps.i32(i)


@ps.kernel(workgroup_size=WG)
def copy_prefix(src: ps.Buffer[ps.i32], dst: ps.Buffer[ps.i32]) -> None:
    """``dst[i] = src[i]`` for every element of ``dst`` (``src`` may be longer)."""
    i = ps.global_id().x
    if i < len(dst):
        dst[i] = src[i]
