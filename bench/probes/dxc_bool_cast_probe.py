"""DXC and ``bool(uint(x))`` of a uint ``x``: the HLSL route gave ``x`` itself, so
``uint(bool(uint(len)))`` was the length, not 1 (fuzz seed 20261204 kernel 100). The
HLSL emitter now writes an integer -> bool conversion as ``x != 0`` (``INT_TO_BOOL_NE``).
To see the fault, set ``HlslEmitter.INT_TO_BOOL_NE = False`` (the probe does with
``--old``) and run on lavapipe or SwiftShader:

    python bench/probes/dxc_bool_cast_probe.py [--old]

Seen 2026-12-04 (DXC of compushady, lavapipe): with ``--old`` the HLSL route printed
``[[0, 1, 4, 0], ...] [4, 4, 4, 4]`` (columns 2 and the second list: the length 4),
the GLSL route ``[[0, 1, 1, 0], ...] [1, 1, 1, 1]``; without, both the GLSL numbers.
"""

from __future__ import annotations

import sys

import numpy as np

import pyshade as ps
from pyshade import u32


@ps.kernel(workgroup_size=4)
def casts(x: ps.Buffer[u32], ou: ps.Buffer[u32], n: u32) -> None:
    i = ps.global_id().x
    ou[i * 4 + 0] = u32(bool(x[i]))
    ou[i * 4 + 1] = u32(bool(n))
    ou[i * 4 + 2] = u32(bool(u32(len(x))))
    b = bool(x[i])
    ou[i * 4 + 3] = u32(b)


@ps.kernel(workgroup_size=4)
def lenonly(x: ps.Buffer[u32], ou: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    ou[i] = u32(bool(u32(len(x))))


if __name__ == "__main__":
    if "--old" in sys.argv:
        from pyshade.emit.hlsl import HlslEmitter
        HlslEmitter.INT_TO_BOOL_NE = False
    for via in ("hlsl", "glsl"):
        d = ps.device("vulkan", via=via)
        x = d.array(np.array([0, 5, 64, 1], np.uint32))
        o = d.zeros(16, np.uint32)
        casts.launch(x, o, 7, threads=4, device=d)
        o2 = d.zeros(4, np.uint32)
        lenonly.launch(x, o2, threads=4, device=d)
        print(via, o.numpy().reshape(4, 4).tolist(), o2.numpy().tolist())
