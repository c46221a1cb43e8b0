"""Shrink a disagreeing kernel to a small one that still disagrees, and keep it.

Edits, repeated while one still fails the same way (``Shrinker.signature``): drop a
statement, replace a compound statement by one of its bodies, drop an ``elif``/``else``/
``case``, replace an expression by a constant of its type or by one of its operands of
the same type. Guards (``X.keep``: a divisor kept from zero, an index kept in range) are
never replaced, only shrunk inside. An edit is kept only when the cpu device still runs
the kernel with finite results, reads no shared-array element nobody wrote (the cpu
device run again with shared arrays filled with another value than zero gives the same
outputs), and the device still fails with the same signature (device, kind of
difference, output), on the same inputs. Pinned statements (a shared array's
initialisation and its barrier, a while loop's counter and break) are never edited.
``regression_source`` writes the result as a module under ``regressions/``, which
tests/test_fuzz.py runs on every device.
"""

from __future__ import annotations

import pprint
import re
import time
from pathlib import Path
from typing import Any

import numpy as np

import pyshade as ps

from .harness import (
    check_on,
    differ,
    kernel_of,
    launch,
    load,
    module_source,
    poisoned_shared,
)
from .nodes import FLOATS, MATS, VECS, Kernel, St, X, blocks, expr_holders, slots

REGRESSIONS = Path(__file__).parent / "regressions"


def leaf_for(ty: str) -> X:
    """A constant of type ``ty``: what a shrunk expression becomes."""
    if ty == "f32":
        return X("1.0", ty, mag=1.0)
    if ty in FLOATS:
        return X(f"{ty}(1.0)", ty, mag=1.0)
    if ty in ("i32", "u32"):
        return X(f"{ty}(1)", ty)
    if ty == "bool":
        return X("True", ty)
    if ty in VECS:
        inner = {"f32": "1.0", "i32": "1", "u32": "u32(1)", "bool": "True"}[VECS[ty][0]]
        return X(f"{ty}({inner})", ty, mag=1.0)
    if ty in MATS:
        return X(f"{ty}()", ty)
    return X(f"{ty}.A", ty)


def signature(o: Any) -> tuple:
    """What a failure is, for "still the same failure": the device, and the exception's
    class and the gist of its message (numbers, names and positions dropped), or the
    first differing output, the kind of its difference (``harness.kind_of``: a zero's
    sign, a NaN, a few ulp, another value, an integer) and whether it is a sink's result
    or an exact value. A shrink step that turns a 1-ulp difference into a sign of zero,
    or moves it to another buffer, is another failure and is undone."""
    if o.status == "disagree":
        m = o.mismatches[0]
        return (o.device, "disagree", m.buf, m.kind, "result" in m.note)
    if o.status != "error":
        return (o.device, o.status)
    cls, _, msg = o.error.partition(": ")
    lines = [ln for ln in msg.splitlines() if ln.strip() and not re.match(r"\S+\.py:\d+", ln)]
    key = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else "")
    key = re.sub(r"'[^']*'|`[^`]*`|\"[^\"]*\"|‘[^’]*’|\d+|/\S+", "", key)
    return (o.device, "error", cls, " ".join(key.split())[:60])


class Shrinker:
    """Shrinks ``kern`` (in place) while it fails on ``dev`` as it first did."""

    def __init__(self, kern: Kernel, seed: int, index: int, label: str, dev: ps.Device,
                 workdir: Path, seconds: float) -> None:
        self.kern, self.seed, self.index, self.label, self.dev = kern, seed, index, label, dev
        self.workdir, self.deadline = workdir, time.monotonic() + seconds
        self.cpu = ps.device("cpu")
        self.seen: dict[str, bool] = {}
        self.want_sig: tuple | None = None
        self.last: Any = None
        self.checks = 0
        self.uninitialised = 0          # candidates rejected for reading unwritten shared

    def outcome(self) -> Any:
        k = self.kern
        try:
            mod = load(module_source([k]), self.workdir, f"shrink_{self.seed}_{self.index}")
        except SyntaxError:     # e.g. a loop's body inlined: its break/continue outside a loop
            return None
        fn, params, inputs = kernel_of(mod, k, self.seed, self.index)
        try:
            want = launch(params, k.meta, fn, mod, self.cpu, inputs)
            if "ps.shared_array" in module_source([k]):
                # shared arrays filled with another value than the cpu device's zeros:
                # an output that changes read an element nobody wrote (0.0 on the cpu
                # device, garbage on a GPU): not a kernel worth keeping
                with poisoned_shared():
                    other = launch(params, k.meta, fn, mod, self.cpu, inputs)
                if any(differ(want[b], other[b]).any() for b in want):
                    self.uninitialised += 1
                    return None
        except Exception:  # noqa: BLE001 - an edit that made the kernel invalid
            return None
        for v in want.values():
            if v.dtype.kind == "f" and not np.isfinite(v).all():
                return None
        return check_on(params, k.meta, fn, mod, self.label, self.dev, inputs, want)

    def still_fails(self) -> bool:
        src = module_source([self.kern])
        if src in self.seen:
            return self.seen[src]
        self.checks += 1
        o = self.outcome()
        ok = o is not None and signature(o) == self.want_sig
        if ok:
            self.last = o
        self.seen[src] = ok
        return ok

    def run(self) -> Any:
        """Shrink; returns the device's outcome on the smallest kernel (None if the first
        run no longer fails: a flaky failure)."""
        o = self.outcome()
        if o is None or o.status not in ("disagree", "error"):
            return None
        self.want_sig, self.last = signature(o), o
        self.seen[module_source([self.kern])] = True
        progress = True
        while progress and time.monotonic() < self.deadline:
            progress = self.drop_statements() | self.inline() | self.simplify()
        return self.last

    def time_left(self) -> bool:
        return time.monotonic() < self.deadline

    def drop_statements(self) -> bool:
        changed = False
        for body in list(self.kern.bodies()):
            for block in list(blocks(body)):
                i = len(block) - 1
                while i >= 0 and self.time_left():
                    if i < len(block) and not block[i].pinned:
                        saved = block.pop(i)
                        if self.still_fails():
                            changed = True
                        else:
                            block.insert(i, saved)
                    i -= 1
        return changed

    def inline(self) -> bool:
        """Replace an if/for/while/match by one of its bodies, or drop one of its clauses."""
        changed = False
        for body in list(self.kern.bodies()):
            for block in list(blocks(body)):
                for i in range(len(block) - 1, -1, -1):
                    if i >= len(block) or not block[i].clauses or block[i].pinned \
                            or not self.time_left():
                        continue
                    st: St = block[i]
                    for c in list(st.clauses):
                        block[i:i + 1] = c.body
                        if self.still_fails():
                            changed = True
                            break
                        block[i:i + len(c.body)] = [st]
                    else:
                        for k in range(len(st.clauses) - 1, 0, -1):
                            c = st.clauses.pop(k)
                            if self.still_fails():
                                changed = True
                            else:
                                st.clauses.insert(k, c)
        return changed

    def simplify(self) -> bool:
        changed = False
        for body in list(self.kern.bodies()):
            for holder in list(expr_holders(body)):
                for h, k in list(slots(holder)):
                    if not self.time_left():
                        return changed
                    node = h[k] if k < len(h) else None
                    if node is None or node.keep:
                        continue
                    cands = [leaf_for(node.ty)] if node.kids or node.fmt != leaf_for(
                        node.ty).fmt else []
                    cands += [kid for kid in node.kids if kid.ty == node.ty]
                    for c in cands:
                        h[k] = c
                        if self.still_fails():
                            changed = True
                            break
                        h[k] = node
        return changed


def regression_source(kern: Kernel, seed: int, index: int, label: str, first: str,
                      xfail: dict[str, str] | None = None) -> str:
    """The shrunk kernel as a module, with what the regression test needs in ``FUZZ``."""
    info = {"seed": seed, "index": index, "kernel": kern.name, "found_on": label,
            "first": first, "params": [n for n, _ in kern.live_params()], "meta": kern.meta,
            "xfail": xfail or {}}
    return module_source([kern]) + f"\n\nFUZZ = {pprint.pformat(info, width=100)}\n"


def keep(kern: Kernel, seed: int, index: int, label: str, first: str,
         xfail: dict[str, str] | None = None, directory: Path = REGRESSIONS) -> Path:
    """Write the regression module; returns its path."""
    path = directory / f"s{seed}_k{index}_{re.sub(r'[^a-z0-9]+', '_', label.lower())}.py"
    path.write_text(regression_source(kern, seed, index, label, first, xfail))
    return path
