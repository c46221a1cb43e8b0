"""Probe (fuzz seed 4417005 kernel 43): ``u32(round(x))`` of an f64 on lavapipe's GLSL
route: the cpu 4, lavapipe 3. Python's ``round`` rounds halves to even (GLSL
``roundEven``). lavapipe (Mesa 22.3.6) rounded the f64 halves of odd integers toward
zero (``roundEven(3.5lf)`` 3.0, also 3.5000000000000004) and left ``roundEven`` and
``trunc`` of values from about 2^49 up unrounded (``1e15 + 0.5``); ``floor`` and
``ceil`` were right; every zero result was +0.0 (``roundEven(-0.3lf)``). The GLSL
emitter now writes f64 ``round`` and ``trunc`` as generated functions of ``floor`` and
``ceil`` (``GlslEmitter.F64_ROUNDING``); the ``--native`` run shows the driver's own
``roundEven`` and ``trunc`` (GLSL written by hand, through glslang). Prints per device
how many of round(x), trunc(x), round(-x), trunc(-x) over halves, near-halves, large
values and signed zeros equal numpy's bits, and the inputs where one differs.

    python bench/probes/lavapipe_f64_round_probe.py [--native]
"""

import sys

import numpy as np
from probe_kernels import devices, load

NATIVE = """#version 450
layout(local_size_x = 4) in;
layout(std430, set = 0, binding = 0) buffer X { double x[]; };
layout(std430, set = 0, binding = 1) buffer O { double o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i * 4 + 0] = roundEven(x[i]);
    o[i * 4 + 1] = trunc(x[i]);
    o[i * 4 + 2] = roundEven(-x[i]);
    o[i * 4 + 3] = trunc(-x[i]);
}
"""

SRC = '''import math
import pyshade as ps
from pyshade import f64, u32


@ps.kernel(workgroup_size=4)
def r(x: ps.Buffer[f64], o: ps.Buffer[f64], u: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    o[i * 4 + 0] = round(x[i])
    o[i * 4 + 1] = math.trunc(x[i])
    o[i * 4 + 2] = round(-x[i])
    o[i * 4 + 3] = math.trunc(-x[i])
    u[i] = u32(round(x[i]))
'''

X = np.array([0.5, 1.5, 2.5, 3.5, 4.5, -2.5, 3.4999999999999996, 3.5000000000000004,
              2.75, 7.25, 1e15 + 0.5, 4503599627370495.5, 123456.5, 0.49999999999999994,
              8.5, 3.0, -0.0, -0.3, -0.5, 0.3, -1e15 - 0.5, 2.0 ** 60 + 2048, 2.5, -3.5], np.float64)



def native(want: np.ndarray) -> None:
    """The driver's own ``roundEven`` and ``trunc`` (the GLSL above through glslang)."""
    from pyshade.runtime.base import BufferSlot, Compiled, Layout
    from pyshade.runtime.vulkan import VulkanDevice
    from pyshade.toolchains.glslang import compile_glsl

    dev = VulkanDevice(0)
    f64 = np.dtype(np.float64)
    k = Compiled("glsl", compile_glsl(NATIVE), NATIVE, "main",
                 Layout((BufferSlot("x", 0, f64, False), BufferSlot("o", 1, f64, True)),
                        None, (4, 1, 1)), key=("f64-round-probe",))
    x, o = dev.array(X), dev.zeros(len(X) * 4, np.float64)
    dev.run_prepared(dev.prepare(k), [x, o], b"", (len(X) // 4, 1, 1))
    report(f"native GLSL on {dev.adapter}", o.numpy().reshape(-1, 4), want)


def report(name: str, got: np.ndarray, want: np.ndarray) -> None:
    same = (got == want) & (np.signbit(got) == np.signbit(want))
    print(f"{name}: {int(same.sum())} of {same.size} equal numpy's bits")
    for i in np.nonzero(~same.all(1))[0]:
        print(f"   x={X[i]!r}: got {got[i].tolist()} want {want[i].tolist()}")


if __name__ == "__main__":
    want = np.stack([np.round(X), np.trunc(X), np.round(-X), np.trunc(-X)], 1)
    if "--native" in sys.argv:
        native(want)
        sys.exit()
    mod = load(SRC, "lavapipe_f64_round_kernels")
    for name, via, dev in devices():
        o = dev.zeros(len(X) * 4, np.float64)
        u = dev.zeros(len(X), np.uint32)
        try:
            mod.r.launch(dev.array(X), o, u, threads=len(X), device=dev)
        except Exception as e:  # noqa: BLE001 - a route without f64 says so
            print(f"{name} {via or ''}: skip, {str(e).splitlines()[-1][:90]}")
            continue
        report(f"{name} {via or ''}", o.numpy().reshape(-1, 4), want)
