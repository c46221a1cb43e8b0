"""The cpu device's data-race detector (on by default; ``ps.device("cpu", races=False)``
turns it off).

Two invocations of one launch race on an element when one writes it and the other
reads or writes it, and nothing orders the two accesses: no ``ps.barrier()`` between
them in one workgroup (invocations of different workgroups are never ordered within a
launch), and not both atomic. A race is a ``LaunchError`` naming both invocations
(``global_id``), the element as the kernel writes it (``a[3]``, ``a[3, 4]``,
``s[2].pos``, ``tile[1, 5]``) and both Python lines.

How: for the launch, every buffer and each workgroup's shared arrays are replaced by
tracked copies (list subclasses; structs by subclasses with a property per field)
whose element reads and writes record, per element, who accessed it in which
*segment*: the cpu device runs workgroups one after another, and each workgroup's
invocations from one barrier to the next, so a segment number that grows at every
barrier and every new workgroup orders all accesses. An earlier access in segment
``p`` and the current one in segment ``s`` (whose workgroup began at segment ``wg0``)
by two invocations conflict when ``p == s`` (same workgroup, no barrier between) or
``p < wg0`` (another workgroup). Per element the detector keeps:

- while only one invocation has touched it (the common case): a tuple ``(inv, read
  segment, read code, read offset, write segment, write code, write offset)``, checked
  and updated inline (a place is the frame's code object and instruction offset,
  cheaper to read than its line: ``_where`` finds the file and line of a race);
- once a second invocation touches it: a list ``[SHARED, w, r1, r1b, rold, a1, a1b,
  aold]`` of ``(inv, segment, (code, offset))`` entries: the last plain write (conflict-free
  writes come from one workgroup, so the last one stands for all), the first reader
  of the latest reading segment, a second reader of that segment, and the latest
  reader of an earlier workgroup; the same three for atomics. These suffice to find a
  conflicting earlier access whenever one exists (see ``_against``).

Atomic operations (``_atomic``, ``_atomic_cas`` of this namespace) record themselves
as atomic accesses: atomics never conflict with atomics or with plain reads (every
target compiles all accesses of a buffer or shared array used with atomics as atomics,
so such a read is an atomic load: the first read of a compare-exchange loop), but do
with plain writes. A store to one component of a vector element (``v[i].x = 1.0``) is a store of the
whole element, as the cpu device executes it.
"""

from __future__ import annotations

import linecache
import sys
from collections import defaultdict
from typing import Any

from ..errors import LaunchError
from . import cpu_support as S

_frame = sys._getframe
_lget = list.__getitem__
_lset = list.__setitem__
#: The first item of an element's general record: no invocation is it, so the inline
#: checks (``rec[0] is inv``) always leave such an element to the general path.
SHARED = object()
_READ, _WRITE, _ATOMIC = 0, 1, 2
_PAST = ("read", "wrote", "atomically updated")
_NOW = ("reads", "writes", "atomically updates")


class Tracker:
    """The state of one launch: who runs now (``inv``, the invocation's ``global_id``
    vector: one object per invocation), in which segment, and the regions tracked."""

    __slots__ = ("kernel", "wg", "shared_names", "inv", "seg", "wg0")

    def __init__(self, kernel: str, shared_names: list[str], wg: tuple[int, int, int]):
        self.kernel = kernel
        self.wg = wg
        self.shared_names = shared_names
        self.inv: Any = None
        self.seg = 0
        self.wg0 = 0

    def buffer(self, lst: list, name: str, shape: tuple) -> list:
        """A tracked copy of a buffer's list (``shape``: the N-D buffer's, else ())."""
        return _wrap_root(lst, Region(self, name, shape if len(shape) > 1 else ()))

    def workgroup(self, shared: list) -> list:
        """Start a workgroup (a new segment) and track its fresh shared arrays."""
        self.seg += 1
        self.wg0 = self.seg
        return [_wrap_root(a, Region(self, n, ())) for a, n in zip(shared, self.shared_names)]

    def barrier(self) -> None:
        """Every invocation of the workgroup passed a barrier: a new segment."""
        self.seg += 1


def plain(x: Any) -> Any:
    """The untracked value of a tracked list or struct (nothing recorded)."""
    t = type(x)
    if t not in _TRACKED:
        return x
    if t is _Agg:
        return [plain(e) for e in x]
    if t is _Leaf or t is _LeafAt:
        return list(x)                          # list() iterates in C: no __getitem__
    return _plain_struct(x)


class Region:
    """One buffer or shared array: its name for messages, its N-D shape (flat indices
    are shown as ``a[i, j]``) and the record of each element, keyed by the flat index
    (or a path tuple: ``(i, "field", j)``)."""

    __slots__ = ("tr", "name", "shape", "m")

    def __init__(self, tr: Tracker, name: str, shape: tuple):
        self.tr = tr
        self.name = name
        self.shape = shape
        #: The records: a list by flat index for a buffer of leaf elements (the fast
        #: path), else a dict by key path whose missing keys read None.
        self.m: Any = defaultdict(_none)

    # -- the inline checks, for keys of nested lists and struct fields ----------------------
    def read_at(self, key: Any, frame: Any) -> None:
        """Record a plain read of ``key`` (as ``_Leaf.__getitem__`` does inline)."""
        m = self.m
        tr = self.tr
        inv = tr.inv
        rec = m[key]
        if rec is None:
            m[key] = (inv, tr.seg, frame.f_code, frame.f_lasti, None, None, None)
        elif rec[0] is not inv or rec[1] != tr.seg:
            self.read(key, rec, frame)

    def write_at(self, key: Any, frame: Any) -> None:
        """Record a plain write of ``key`` (as ``_Leaf.__setitem__`` does inline)."""
        m = self.m
        tr = self.tr
        inv = tr.inv
        rec = m[key]
        if rec is None:
            m[key] = (inv, None, None, None, tr.seg, frame.f_code, frame.f_lasti)
        elif rec[0] is inv:
            if rec[4] != tr.seg:
                m[key] = (inv, rec[1], rec[2], rec[3], tr.seg, frame.f_code, frame.f_lasti)
        else:
            self.write(key, rec, frame)

    # -- the general path ---------------------------------------------------------------
    def _general(self, key: Any, rec: Any) -> list:
        """The general record of an element so far touched by one invocation."""
        if rec.__class__ is not tuple:
            return rec                          # type: ignore[no-any-return]
        inv, rseg, rcode, rlasti, wseg, wcode, wlasti = rec
        g = [SHARED, None if wseg is None else (inv, wseg, (wcode, wlasti)),
             None if rseg is None else (inv, rseg, (rcode, rlasti)), None, None, None, None,
             None]
        self.m[key] = g
        return g

    def read(self, key: Any, rec: Any, frame: Any) -> None:
        """A plain read of ``key`` that the inline check left here."""
        tr = self.tr
        inv, seg, wg0 = tr.inv, tr.seg, tr.wg0
        if rec.__class__ is tuple and rec[0] is inv:
            self.m[key] = (inv, seg, frame.f_code, frame.f_lasti, rec[4], rec[5], rec[6])
            return
        g = self._general(key, rec)
        w = g[1]
        if w is not None and w[0] is not inv and (w[1] == seg or w[1] < wg0):
            self.race(key, w, _WRITE, _READ, frame)
        _add(g, 2, inv, seg, wg0, _loc(frame))

    def write(self, key: Any, rec: Any, frame: Any) -> None:
        """A plain write of ``key`` by another invocation than its only one so far, or
        of an element with a general record."""
        tr = self.tr
        inv, seg, wg0 = tr.inv, tr.seg, tr.wg0
        g = self._general(key, rec)
        self._check_writer(key, g, inv, seg, wg0, _WRITE, frame)
        w = g[1]
        if w is None or w[0] is not inv or w[1] != seg:
            g[1] = (inv, seg, _loc(frame))

    def atomic(self, key: Any, frame: Any) -> None:
        """An atomic read-modify-write of ``key``: conflicts with others' plain writes."""
        tr = self.tr
        inv, seg, wg0 = tr.inv, tr.seg, tr.wg0
        rec = self.m[key]
        if rec is None:
            self.m[key] = [SHARED, None, None, None, None,
                           (inv, seg, _loc(frame)), None, None]
            return
        g = self._general(key, rec)
        w = g[1]                                # a plain read is an atomic load: no check
        if w is not None and w[0] is not inv and (w[1] == seg or w[1] < wg0):
            self.race(key, w, _WRITE, _ATOMIC, frame)
        _add(g, 5, inv, seg, wg0, _loc(frame))

    def _check_writer(self, key: Any, g: list, inv: Any, seg: int, wg0: int, kind: int,
                      frame: Any) -> None:
        """Raise if a plain write of ``key`` now conflicts with an earlier access."""
        w = g[1]
        if w is not None and w[0] is not inv and (w[1] == seg or w[1] < wg0):
            self.race(key, w, _WRITE, kind, frame)
        hit = _against(g[2], g[3], g[4], inv, seg, wg0)
        if hit is not None:
            self.race(key, hit, _READ, kind, frame)
        hit = _against(g[5], g[6], g[7], inv, seg, wg0)
        if hit is not None:
            self.race(key, hit, _ATOMIC, kind, frame)

    # -- the report ---------------------------------------------------------------------
    def element(self, key: Any) -> str:
        """``key`` as the kernel writes the element: ``a[3]``, ``a[3, 4]``, ``s[2].v``."""
        parts = list(key) if isinstance(key, tuple) else [key]
        first = parts.pop(0)
        if self.shape:
            idx: list = []
            for size in reversed(self.shape):
                idx.append(first % size)
                first //= size
            out, ints = self.name, list(reversed(idx))
        else:
            out, ints = self.name, [first]
        for p in parts:
            if isinstance(p, str):
                if ints:
                    out += f"[{', '.join(map(str, ints))}]"
                    ints = []
                out += f".{p}"
            else:
                ints.append(p)
        if ints:
            out += f"[{', '.join(map(str, ints))}]"
        return out

    def race(self, key: Any, prior: tuple, prior_kind: int, kind: int, frame: Any) -> None:
        """Raise the LaunchError of a race between ``prior`` and the current access."""
        tr = self.tr
        elem = self.element(key)
        a, b = _gid(prior[0]), _gid(tr.inv)
        same = all(x // n == y // n for x, y, n in zip(a, b, tr.wg))
        kinds = {prior_kind, kind}
        what = ("two invocations write it" if kinds == {_WRITE} else
                "one invocation writes it and another reads it" if kinds == {_WRITE, _READ}
                else "one invocation updates it atomically and another writes it "
                "without an atomic")
        lines = []
        for gid, verb, (fname, line) in (
                (a, _PAST[prior_kind], _where(*prior[2])),
                (b, _NOW[kind], (frame.f_code.co_filename, frame.f_lineno))):
            src = linecache.getline(fname, line).strip()
            lines.append(f"  global_id {gid} {verb} {elem} at {fname}:{line}"
                         + (f"\n      {src}" if src else ""))
        if same:
            where = "in one workgroup, with no ps.barrier() between the two accesses"
            fix = "or put a ps.barrier() between the two accesses"
        else:
            where = "in different workgroups, which nothing orders within a launch"
            fix = "or split the kernel into two launches (a ps.barrier() orders one workgroup)"
        raise LaunchError(
            f"{tr.kernel}(): data race on {elem}: {what} {where}\n" + "\n".join(lines)
            + f"\ngive each invocation its own elements, use atomics, {fix}; "
            "ps.device(\"cpu\", races=False) turns this check off")


def _loc(frame: Any) -> tuple:
    """Where ``frame`` is now: its code and instruction offset (cheaper to read than its
    line, which ``_where`` finds when a race is reported)."""
    return frame.f_code, frame.f_lasti


def _where(code: Any, lasti: int) -> tuple[str, int]:
    """The (file, line) of instruction offset ``lasti`` of ``code`` (the kernel's file,
    or a helper's own)."""
    line = code.co_firstlineno
    for start, end, ln in code.co_lines():
        if start <= lasti < end and ln is not None:
            line = ln
            break
    return code.co_filename, line


def _none() -> None:
    """A dict record's default: no access yet."""
    return None


def _gid(inv: Any) -> tuple:
    return tuple(inv) if isinstance(inv, tuple) else (inv, 0, 0)


def _against(first: Any, second: Any, old: Any, inv: Any, seg: int, wg0: int) -> Any:
    """An earlier access among one kind's three entries (``first`` of the latest
    segment, a ``second`` invocation in it, the latest ``old`` one of an earlier
    workgroup) that conflicts with ``inv`` accessing now in ``seg``, or None.

    Complete: a conflicting access in this segment by another invocation makes
    ``first`` (if not ``inv``) or ``second`` one; one of an earlier workgroup makes
    ``first`` one when it is of an earlier workgroup, else ``old`` exists."""
    if first is None:
        return None
    if first[0] is not inv and (first[1] == seg or first[1] < wg0):
        return first
    if first[1] == seg and second is not None and second[0] is not inv:
        return second
    if first[1] >= wg0 and old is not None:
        return old
    return None


def _add(g: list, at: int, inv: Any, seg: int, wg0: int, loc: Any) -> None:
    """Record ``inv``'s access in ``seg`` in the three entries of ``g`` from ``at``."""
    first = g[at]
    if first is None:
        g[at] = (inv, seg, loc)
    elif first[1] == seg:
        if g[at + 1] is None and first[0] is not inv:
            g[at + 1] = (inv, seg, loc)
    else:
        if first[1] < wg0:
            g[at + 2] = first
        g[at] = (inv, seg, loc)
        g[at + 1] = None


# ------------------------------------------------------------------ tracked values

class _Leaf(S.Shaped):
    """A buffer or shared array whose elements are scalars, vectors or matrices, keyed
    by their flat index: the hot path, checked inline (``_ps_m``, ``_ps_tr``: the
    region's records and tracker, one attribute away)."""

    __slots__ = ("_ps_st", "_ps_m", "_ps_tr")

    def __getitem__(self, i: Any) -> Any:
        v = _lget(self, i)                      # an index out of range raises first
        tr = self._ps_tr
        m = self._ps_m
        rec = m[i]
        if rec is None:
            f = _frame(1)
            m[i] = (tr.inv, tr.seg, f.f_code, f.f_lasti, None, None, None)
        elif rec[0] is not tr.inv or rec[1] != tr.seg:
            self._ps_st.read(i, rec, _frame(1))
        return v

    def __setitem__(self, i: Any, v: Any) -> None:
        _lset(self, i, v)
        tr = self._ps_tr
        m = self._ps_m
        rec = m[i]
        if rec is None:
            f = _frame(1)
            m[i] = (tr.inv, None, None, None, tr.seg, f.f_code, f.f_lasti)
        elif rec[0] is tr.inv:
            if rec[4] != tr.seg:
                f = _frame(1)
                m[i] = (rec[0], rec[1], rec[2], rec[3], tr.seg, f.f_code, f.f_lasti)
        else:
            self._ps_st.write(i, rec, _frame(1))

    def _ps_leaves(self) -> Any:
        return range(len(self))


class _LeafAt(list):
    """A nested list of leaf elements (a row of a 2-D shared array, an array field of
    a struct element), keyed by its path plus the index."""

    __slots__ = ("_ps_st", "_ps_key")

    def __getitem__(self, i: Any) -> Any:
        v = _lget(self, i)
        self._ps_st.read_at(self._ps_key + (i,), _frame(1))
        return v

    def __setitem__(self, i: Any, v: Any) -> None:
        _lset(self, i, v)
        self._ps_st.write_at(self._ps_key + (i,), _frame(1))

    def _ps_leaves(self) -> Any:
        return [self._ps_key + (i,) for i in range(len(self))]


class _Agg(S.Shaped):
    """A list whose elements are aggregates (structs, lists), each tracked itself:
    reading one records nothing, storing one is a write of each of its leaves."""

    __slots__ = ("_ps_st", "_ps_key")

    def __setitem__(self, i: Any, v: Any) -> None:
        _lget(self, i)
        v = plain(v)
        st = self._ps_st
        key = self._ps_key + (i,)
        frame = _frame(1)
        for k in _leaf_keys(v, key):
            st.write_at(k, frame)
        _lset(self, i, _wrap(v, st, key))

    def _ps_leaves(self) -> Any:
        return [k for e in self for k in _tracked_leaves(e)]


#: The tracked types: ``plain`` and ``_copy`` tell them from plain values by one lookup
#: (the struct subclasses join as ``_tracked_class`` makes them).
_TRACKED: set = {_Leaf, _LeafAt, _Agg}


def _leaf_keys(v: Any, key: tuple) -> list:
    """The element keys of a plain value ``v`` stored at ``key``."""
    if isinstance(v, S.Struct):
        return [k for f in v._fields for k in _leaf_keys(getattr(v, f), key + (f,))]
    if type(v) is list:
        return [k for i, e in enumerate(v) for k in _leaf_keys(e, key + (i,))]
    return [key]


def _tracked_leaves(x: Any) -> list:
    """The element keys of a tracked aggregate."""
    if isinstance(x, S.Struct):
        return [k for f in x._fields for k in _field_leaves(x, f)]
    return list(x._ps_leaves())


def _field_leaves(x: Any, f: str) -> list:
    v = type(x).__mro__[1].__dict__[f].__get__(x)
    if isinstance(v, (S.Struct, list)):
        return _tracked_leaves(v)
    return [x._ps_key + (f,)]


def _is_agg(e: Any) -> bool:
    return type(e) is list or isinstance(e, S.Struct)


def _wrap_root(lst: list, st: Region) -> list:
    """A buffer's or shared array's list as a tracked list of region ``st``."""
    if lst and _is_agg(lst[0]):
        out: Any = _Agg(_wrap(e, st, (i,)) for i, e in enumerate(lst))
        out._ps_key = ()
    else:
        out = _Leaf(lst)
        st.m = out._ps_m = [None] * len(lst)
        out._ps_tr = st.tr
    out._ps_st = st
    if isinstance(lst, S.Shaped):
        out.shape = lst.shape
    return out                                  # type: ignore[no-any-return]


def _wrap(v: Any, st: Region, key: tuple) -> Any:
    """A tracked copy of the aggregate ``v`` (a plain struct or list) at ``key``; a
    leaf value as it is."""
    if isinstance(v, S.Struct):
        cls = _tracked_class(type(v))
        obj = object.__new__(cls)
        base = cls.__mro__[1].__dict__
        for f in v._fields:
            base[f].__set__(obj, _wrap(getattr(v, f), st, key + (f,)))
        obj._ps_st = st
        obj._ps_key = key
        return obj
    if type(v) is list:
        if v and _is_agg(v[0]):
            out: Any = _Agg(_wrap(e, st, key + (i,)) for i, e in enumerate(v))
        else:
            out = _LeafAt(v)
        out._ps_st = st
        out._ps_key = key
        return out
    return v


def _plain_struct(x: Any) -> Any:
    base = type(x).__mro__[1]
    new = object.__new__(base)
    for f in x._fields:
        d = base.__dict__[f]
        d.__set__(new, plain(d.__get__(x)))
    return new


def _snapshot(x: Any, frame: Any) -> Any:
    """A plain deep copy of a tracked aggregate, recording a read of each element."""
    st = x._ps_st
    for k in _tracked_leaves(x):
        st.read_at(k, frame)
    return plain(x)


def _tracked_class(cls: type) -> type:
    """The subclass of struct class ``cls`` whose fields are tracked (made once)."""
    sub = cls.__dict__.get("_ps_tracked")
    if sub is not None:
        return sub                              # type: ignore[no-any-return]
    body: dict = {"__slots__": ("_ps_st", "_ps_key"),
                  "_copy": lambda self: _snapshot(self, _kernel_frame())}
    for f in cls._fields:                       # type: ignore[attr-defined]
        body[f] = _field_property(f, cls.__dict__[f])
    sub = type(cls.__name__, (cls,), body)
    _TRACKED.add(sub)
    cls._ps_tracked = sub                       # type: ignore[attr-defined]
    return sub


def _field_property(f: str, slot: Any) -> property:
    """The tracked field ``f`` (``slot``: the base class's slot descriptor): a read of a
    scalar, vector or matrix field is recorded; an aggregate field is tracked itself."""
    get, put = slot.__get__, slot.__set__

    def getter(self: Any) -> Any:
        v = get(self)
        if isinstance(v, (list, S.Struct)):     # tracked itself: reading it reads nothing
            return v
        self._ps_st.read_at(self._ps_key + (f,), _frame(1))
        return v

    def setter(self: Any, v: Any) -> None:
        key = self._ps_key + (f,)
        st = self._ps_st
        frame = _frame(1)
        if isinstance(v, (list, S.Struct)):
            v = plain(v)
            for k in _leaf_keys(v, key):
                st.write_at(k, frame)
            v = _wrap(v, st, key)
        else:
            st.write_at(key, frame)
        put(self, v)

    return property(getter, setter)


def _kernel_frame() -> Any:
    """The innermost frame of the kernel's code (its namespace, whatever the file of
    the function), below pyshade's helpers."""
    f = _frame(2)
    while f.f_back is not None and f.f_globals.get("__name__") != "pyshade_kernel":
        f = f.f_back
    return f


# ------------------------------------------------------------------ the namespace

def _copy(x: Any) -> Any:
    """``cpu_support._copy`` that copies tracked lists and structs too, as reads."""
    if type(x) in _TRACKED:
        return _snapshot(x, _frame(1))
    return S._copy(x)


def _atomic(op: str, lst: list, i: int, v: Any, wrap: Any) -> Any:
    """``cpu_support._atomic``, recorded as an atomic access."""
    old = S._atomic(op, lst, i, v, wrap)
    _record_atomic(lst, i, _frame(1))
    return old


def _atomic_cas(lst: list, i: int, expected: Any, new: Any) -> Any:
    """``cpu_support._atomic_cas``, recorded as an atomic access."""
    old = S._atomic_cas(lst, i, expected, new)
    _record_atomic(lst, i, _frame(1))
    return old


def _record_atomic(lst: list, i: int, frame: Any) -> None:
    st = getattr(lst, "_ps_st", None)
    if st is not None:
        st.atomic(i if type(lst) is _Leaf else lst._ps_key + (i,), frame)


#: What a racing-checking cpu device puts over ``cpu_support``'s names in the namespace
#: that the emitted code runs in.
SUPPORT = {"_copy": _copy, "_atomic": _atomic, "_atomic_cas": _atomic_cas}
