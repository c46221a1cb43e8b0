"""Particles in a box: a ``@ps.struct`` with an IntEnum field, read and written
through a ``Buffer[Particle]``, integrated with ``match`` on the enum.

    python examples/particles.py [--device NAME] [--n 100000] [--steps 100]

FREE particles drift and wrap around the box, BOUNCY ones fall under gravity
and bounce off the walls, STUCK ones stay put; every particle ages by one
per step. All steps are recorded in one ``dev.batch()``. The result is
checked against numpy doing the same float32 arithmetic: exactly on the cpu
device; within a small tolerance on a GPU, whose compiler may fuse a
multiply-add (one rounding instead of two). A few records are read back as
``Particle`` instances with ``Particle.from_numpy``.
"""

from __future__ import annotations

import argparse
import sys
import time
from enum import IntEnum
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

import pyshade as ps
from pyshade import f32, u32, vec2


class Kind(IntEnum):
    FREE = 0
    BOUNCY = 1
    STUCK = 2


@ps.struct
class Particle:
    pos: vec2
    vel: vec2
    kind: Kind
    age: u32

    if TYPE_CHECKING:               # added by @ps.struct; declared for type checkers
        dtype: ClassVar[np.dtype[np.void]]

        @classmethod
        def from_numpy(cls, arr: np.ndarray) -> Any: ...


def wrap(x: f32, size: f32) -> f32:
    """x moved back into [0, size) (a step is shorter than the box)."""
    if x < 0.0:
        return x + size
    if x >= size:
        return x - size
    return x


@ps.kernel(workgroup_size=64)
def step(particles: ps.Buffer[Particle], box: vec2, gravity: vec2, dt: f32) -> None:
    i = ps.global_id().x
    if i >= len(particles):
        return
    p = particles[i]
    match p.kind:
        case Kind.FREE:
            pos = p.pos + p.vel * dt
            p.pos = vec2(wrap(pos.x, box.x), wrap(pos.y, box.y))
        case Kind.BOUNCY:
            vel = p.vel + gravity * dt
            pos = p.pos + vel * dt
            x, y = pos.x, pos.y
            vx, vy = vel.x, vel.y
            if x < 0.0:
                x, vx = -x, -vx
            elif x > box.x:
                x, vx = 2.0 * box.x - x, -vx
            if y < 0.0:
                y, vy = -y, -vy
            elif y > box.y:
                y, vy = 2.0 * box.y - y, -vy
            p.pos = vec2(x, y)
            p.vel = vec2(vx, vy)
        case Kind.STUCK:
            pass
    p.age += 1
    particles[i] = p


def step_numpy(a: np.ndarray, box: np.ndarray, gravity: np.ndarray, dt: float) -> None:
    """One step of the kernel on a record array, in place, with float32 arithmetic."""
    f = np.float32
    pos, vel, kind = a["pos"], a["vel"], a["kind"]
    free, bouncy = kind == Kind.FREE, kind == Kind.BOUNCY

    p = pos[free] + vel[free] * dt
    p = np.where(p < 0, p + box, np.where(p >= box, p - box, p))
    pos[free] = p

    v = vel[bouncy] + gravity * dt
    p = pos[bouncy] + v * dt
    lo, hi = p < 0, p > box
    p = np.where(lo, -p, np.where(hi, f(2.0) * box - p, p))
    v = np.where(lo | hi, -v, v)
    pos[bouncy], vel[bouncy] = p, v
    a["age"] += 1


def make_particles(n: int, box: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """n random particles of every kind inside the box."""
    a = np.zeros(n, Particle.dtype)
    a["pos"] = (rng.random((n, 2)) * box).astype(np.float32)
    a["vel"] = rng.uniform(-1, 1, (n, 2)).astype(np.float32)
    a["kind"] = rng.integers(0, len(Kind), n)
    return a


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--device", default=None, help="device name (default: the best available)")
    ap.add_argument("--n", type=int, default=None,
                    help="number of particles (default: 100000; 2000 on the cpu device)")
    ap.add_argument("--steps", type=int, default=None,
                    help="time steps (default: 100; 10 on the cpu device)")
    ap.add_argument("--show", type=int, default=4, help="particles to print")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    dev = ps.device(args.device)
    cpu = dev.name == "cpu"
    n = args.n if args.n is not None else (2000 if cpu else 100_000)
    steps = args.steps if args.steps is not None else (10 if cpu else 100)
    box = np.array([4.0, 3.0], np.float32)
    gravity = np.array([0.0, -9.81], np.float32)
    dt = f32(0.01)                  # an np.float32 at run time
    kbox, kgravity = vec2(*box), vec2(*gravity)     # the kernel's vec2 arguments

    host = make_particles(n, box, np.random.default_rng(args.seed))
    arr = dev.array(host)
    # Warm up on one scratch particle: the first launch translates and compiles.
    step.launch(dev.array(host[:1]), kbox, kgravity, dt, threads=1, device=dev)
    dev.synchronize()
    t0 = time.perf_counter()
    with dev.batch():
        for _ in range(steps):
            step.launch(arr, kbox, kgravity, dt, threads=n, device=dev)
    dev.synchronize()
    elapsed = time.perf_counter() - t0
    got = arr.numpy()

    want = host.copy()
    for _ in range(steps):
        step_numpy(want, box, gravity, dt)

    same_int = (np.array_equal(got["kind"], want["kind"])
                and np.array_equal(got["age"], want["age"]))
    if cpu:
        bad = np.count_nonzero((got["pos"] != want["pos"]).any(1)
                               | (got["vel"] != want["vel"]).any(1))
    else:
        d = got["pos"] - want["pos"]
        d -= np.round(d / box) * box          # a FREE particle may wrap one step apart
        bad = np.count_nonzero((np.abs(d) > 1e-3).any(1)
                               | (~np.isclose(got["vel"], want["vel"], atol=1e-3)).any(1))
    ok = same_int and bad == 0

    print(f"particles  device={dev.name}  adapter={dev.adapter}")
    print(f"n={n}  steps={steps}  time={elapsed * 1e3:.2f} ms (one batch)")
    for i, p in enumerate(Particle.from_numpy(got[:args.show])):   # -> Particle instances
        print(f"  [{i}] {p.kind.name:6}  pos=({p.pos[0]:8.5f}, {p.pos[1]:8.5f})  "
              f"vel=({p.vel[0]:8.5f}, {p.vel[1]:8.5f})  age={p.age}")
    counts = ", ".join(f"{k.name}={np.count_nonzero(got['kind'] == k)}" for k in Kind)
    print(f"kinds: {counts}")
    if not same_int:
        print("kind or age fields differ from numpy")
    print("ok" if ok else f"FAILED: {bad} of {n} particles differ from numpy")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
