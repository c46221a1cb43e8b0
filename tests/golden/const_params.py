"""Compile-time parameters: Const[int], Const[bool], Const[float], Const[type]
(a trait implementation), and ps.target folding of dead branches."""

import pyshade as ps
from pyshade import f32, i32, u32

BLOCK = 4                                   # module-level constant


class Descending:
    @staticmethod
    def before(a: u32, b: u32) -> bool:
        return a > b

    @staticmethod
    def identity() -> u32:
        return 0


@ps.kernel(workgroup_size=64)
def blocked_sum(src: ps.Buffer[f32], dst: ps.Buffer[f32],
                width: ps.Const[int], relu: ps.Const[bool], scale: ps.Const[float] = 0.5) -> None:
    i = ps.global_id().x
    if (i + 1) * width > len(src):
        return
    acc: f32 = 0.0
    for k in ps.unroll(range(width)):
        v = src[i * width + u32(k)]
        if relu:
            v = max(v, 0.0)
        acc += v
    if width > BLOCK:
        acc = acc / f32(width)
    dst[i] = acc * scale


@ps.kernel(workgroup_size=64)
def best_of(data: ps.Buffer[u32], out: ps.Buffer[u32], order: ps.Const[type[Descending]], n: ps.Const[int]) -> None:  # noqa: E501
    i = ps.global_id().x
    if i >= len(out):
        return
    best = data[i * n]
    for k in range(u32(1), n):
        c = data[i * n + k]
        if order.before(c, best):
            best = c
    out[i] = best + order.identity()


@ps.kernel(workgroup_size=64)
def per_target(out: ps.Buffer[i32]) -> None:
    i = ps.global_id().x
    if i >= len(out):
        return
    code: i32 = 0
    if ps.target == "python":
        code = 1
        print("running on the CPU, thread", i)
    elif ps.target == "wgsl":
        code = 2
    else:
        code = 3
    fast = 10 if ps.target != "python" else 20
    out[i] = code + fast


SPECS = {
    "blocked_sum": {"width": 3, "relu": True},
    "best_of": {"order": Descending, "n": 8},
}
