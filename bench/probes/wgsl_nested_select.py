"""Probe (fuzz seed 20261206 kernel 108, recorded as a timeout: the worker died): naga 29
(wgpu-native 29.0.3) panics, "internal error: entered unreachable code" in
``constant_evaluator.rs`` (``ConstantEvaluator::select``), when ``select()`` gets a
constant vector composed of a vector, ``vec3<bool>(vec2<bool>(false, true), true)`` or
``vec3<f32>(vec2<f32>(1.0, 3.0), 1.0)``; the panic cannot unwind through the C API, so
the process aborts. The same vectors flat, ``vec3<bool>(false, true, true)``, or a
runtime value inside are fine. pyshade's WGSL writes a vector constructor inside a vector
constructor of the same element type as its components (``WgslEmitter.components``).
Each shader is created in a child process:

    python bench/probes/wgsl_nested_select.py
"""
import subprocess
import sys

SHADER = """@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() {
    let v = select(vec3<f32>(1.0), vec3<f32>(2.0), COND);
    o[0] = v.y;
}"""
CONDS = ["vec3<bool>(false, true, true)", "vec3<bool>(vec2<bool>(false, true), true)",
         "vec3<bool>(vec2<bool>(o[1] > 0.0, true), true)"]


def child(cond: str) -> None:
    import wgpu
    dev = wgpu.utils.get_default_device()
    dev.create_shader_module(code=SHADER.replace("COND", cond))


if __name__ == "__main__":
    if len(sys.argv) > 1:
        child(sys.argv[1])
    else:
        for cond in CONDS:
            r = subprocess.run([sys.executable, __file__, cond], capture_output=True, text=True)
            panic = "unreachable" in r.stderr
            print(f"{cond:48} exit {r.returncode}{' (naga panicked)' if panic else ''}")
