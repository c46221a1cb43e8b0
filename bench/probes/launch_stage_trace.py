"""How often the first cpu launch of a kernel moves between the kernel object
(``pyshade/kernel.py``) and the launch path (``pyshade/launch/``): issue 14 counted 101
changes of stage. Prints how often the stage of the line being run changes between the two."""

from __future__ import annotations

import sys

import numpy as np

import pyshade as ps
from pyshade import f32


@ps.kernel(workgroup_size=64)
def saxpy(x: ps.Buffer[f32], y: ps.Buffer[f32], a: f32) -> None:
    i = ps.global_id().x
    if i < len(x):
        y[i] = a * x[i] + y[i]


def stage(filename: str) -> str | None:
    if "/pyshade/launch/" in filename:
        return "launch"
    if filename.endswith("/pyshade/kernel.py"):
        return "kernel"
    return None


def main() -> None:
    dev = ps.device("cpu")
    x, y = dev.array(np.ones(100, np.float32)), dev.zeros(100, np.float32)
    changes, last = 0, None

    def tracer(frame, event, arg):  # noqa: ANN001, ANN202 - sys.settrace's signature
        nonlocal changes, last
        # every line run in either stage; frames elsewhere (frontend, emit, runtime)
        # leave the current stage as it was
        s = stage(frame.f_code.co_filename)
        if s is not None:
            if last is not None and s != last:
                changes += 1
            last = s
        return tracer
    sys.settrace(tracer)
    try:
        saxpy.launch(x, y, 2.0, threads=100, device=dev)
    finally:
        sys.settrace(None)
    assert np.allclose(y.numpy(), 2.0)
    print(f"stage changes between kernel.py and launch/ in the first launch: {changes}")


if __name__ == "__main__":
    main()
