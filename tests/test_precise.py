"""No float contraction on the vulkan routes (issue 16): the GLSL and HLSL emitters
declare ``precise`` what holds a float (``emit/precise.py``), so glslang and DXC mark the
arithmetic flowing there ``NoContraction``; the toolchains decorate every other float
operation of a kernel's SPIR-V (``toolchains/spirv.py``). Then ``a * b + c`` rounds twice
on every Vulkan driver, as numpy's float32 ``(a * b) + c`` and the cpu device do, where a
fused multiply-add would round once.

lavapipe (Mesa 22.3) and SwiftShader keep ``a * b + c`` apart even without
``NoContraction``, but lavapipe fuses ``a * a - b * b + c`` (27% of random inputs
differed before, on both routes, and still do through WGSL): ``square_diff`` is the
form that fails in CI if the marking is lost."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest
from conftest import require_dxc, require_tools
from test_golden import GOLDEN, hlsl_entry

import pyshade as ps
from pyshade import f32
from pyshade.toolchains.spirv import no_contraction

N = 100_000


@ps.kernel(workgroup_size=64)
def mad_store(a: ps.Buffer[f32], b: ps.Buffer[f32], c: ps.Buffer[f32], out: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(out):
        out[i] = a[i] * b[i] + c[i]


@ps.kernel(workgroup_size=64)
def mad_split(a: ps.Buffer[f32], b: ps.Buffer[f32], c: ps.Buffer[f32], out: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(out):
        p = a[i] * b[i]
        s = c[i]
        s += p
        out[i] = s


def mad(x: f32, y: f32, z: f32) -> f32:
    return x * y + z


@ps.kernel(workgroup_size=64)
def mad_helper(a: ps.Buffer[f32], b: ps.Buffer[f32], c: ps.Buffer[f32], out: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(out):
        out[i] = mad(a[i], b[i], c[i])


@ps.kernel(workgroup_size=64)
def mad_tested(a: ps.Buffer[f32], b: ps.Buffer[f32], c: ps.Buffer[f32], out: ps.Buffer[f32]):
    """The forms no declaration reaches: a condition, a call statement's argument."""
    i = ps.global_id().x
    if i < len(out):
        out[i] = 0.0
        if a[i] * b[i] + c[i] == 0.0:
            out[i] = 1.0
        ps.atomic_add(out, i, a[i] * b[i] + c[i])


@ps.kernel(workgroup_size=64)
def square_diff(a: ps.Buffer[f32], b: ps.Buffer[f32], c: ps.Buffer[f32], out: ps.Buffer[f32]):
    """The real part of z * z + c, which lavapipe contracts (see the module docstring)."""
    i = ps.global_id().x
    if i < len(out):
        out[i] = a[i] * a[i] - b[i] * b[i] + c[i]


def _mad(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """numpy's float32 (a * b) + c, and the fused a * b + c (exact product, one rounding)."""
    return (a * b) + c, (a.astype(np.float64) * b + c).astype(np.float32)


def _square_diff(a: np.ndarray, b: np.ndarray,
                 c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """numpy's float32 (a * a - b * b) + c, and the form with fma(a, a, -(b * b))."""
    bb = b * b
    return (a * a - bb) + c, (a.astype(np.float64) * a - bb).astype(np.float32) + c


KERNELS = [mad_store, mad_split, mad_helper, square_diff]
REFERENCE = {mad_store: _mad, mad_split: _mad, mad_helper: _mad, square_diff: _square_diff}


def disassemble(spv: bytes) -> str:
    """spirv-dis of a module."""
    return subprocess.run([shutil.which("spirv-dis"), "-"], input=spv, capture_output=True,
                          check=True).stdout.decode()


def unmarked(spv: bytes) -> tuple[list[str], int]:
    """The float mul/add/sub/div results of ``spv`` without NoContraction, and how many
    there are in all; a fused ``Fma`` counts as unmarked."""
    text = disassemble(spv)
    nc = set(re.findall(r"OpDecorate (%\w+) NoContraction", text))
    ops = re.findall(r"(%\w+) = OpF(?:Mul|Add|Sub|Div) ", text)
    fused = re.findall(r"(%\w+) = OpExtInst %\w+ %\w+ Fma ", text)
    return [o for o in ops if o not in nc] + fused, len(ops)


def raw_spirv(text: str, target: str, entry: str) -> bytes:
    """The SPIR-V of ``text`` as its compiler alone makes it (no ``no_contraction``)."""
    if target == "glsl":
        from pyshade.toolchains.glslang import compile_glsl
        return compile_glsl(text, entry=entry)
    from pyshade.toolchains import dxc
    return dxc.compile_hlsl(text, entry=entry, target="spirv")


def require_route(target: str) -> None:
    """The compiler of ``target`` and spirv-dis (skip locally, fail in CI)."""
    require_tools("spirv-dis", "spirv-val", *(["glslangValidator"] if target == "glsl" else []),
                  why="to look at the SPIR-V's decorations")
    if target == "hlsl":
        require_dxc()


# -- (a) the text -------------------------------------------------------------------------
@pytest.mark.parametrize(("target", "want"), [
    ("glsl", ["buffer ps_y_block { precise float y[]; }", "precise float a = ps_params.a;"]),
    ("hlsl", ["precise RWStructuredBuffer<float> y", "precise float a = ps_params.a;"])])
def test_goldens_say_precise(target: str, want: list[str]) -> None:
    """The saxpy golden stores into a precise buffer; a float helper's result is precise;
    an integer-only kernel and the other targets have no ``precise``."""
    ext = ps.targets.get(target).extension
    saxpy = (GOLDEN / target / f"saxpy.saxpy.{ext}").read_text()
    for w in want:
        assert w in saxpy
    helpers = (GOLDEN / target / f"helpers.scatter.{ext}").read_text()
    assert re.search(r"^precise (float|float2|vec2) jitter\(", helpers, re.MULTILINE)
    assert re.search(r"^uint hash32\(", helpers, re.MULTILINE)
    assert "precise" not in (GOLDEN / target / f"int_semantics.logic.{ext}").read_text()
    for other in ("wgsl", "msl", "cuda", "python"):
        ext = ps.targets.get(other).extension
        assert "precise" not in (GOLDEN / other / f"saxpy.saxpy.{ext}").read_text()


def test_float_fed_locals_are_precise() -> None:
    """A bool or int computed from float arithmetic is precise too (a comparison, a
    conversion): what flows into it is traced back."""
    @ps.kernel(workgroup_size=64)
    def fed(a: ps.Buffer[f32], n: ps.Buffer[ps.u32]):
        i = ps.global_id().x
        big = a[i] * a[i] > 2.0
        k = ps.u32(a[i] * 3.0)
        j = i + 1
        n[i] = k + ps.u32(big) + j
    for target, decl in (("glsl", "bool"), ("hlsl", "bool")):
        text = ps.translate(fed, target)
        assert f"precise {decl} big = " in text and "precise uint k = " in text
        assert "uint j = " in text and "precise uint j" not in text


# -- (b) the SPIR-V -----------------------------------------------------------------------
@pytest.mark.parametrize("target", ["glsl", "hlsl"])
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_declarations_make_every_float_op_no_contraction(kernel: ps.Kernel, target: str) -> None:
    """Stored directly, through locals and an augmented assignment, through a helper: the
    compiler alone marks every float operation (the text does it), and so does the route."""
    require_route(target)
    c = ps.compile(kernel, target)
    missing, total = unmarked(raw_spirv(c.source, target, c.entry))
    assert total >= 2 and not missing, c.source
    missing, total = unmarked(c.binary)
    assert total >= 2 and not missing


@pytest.mark.parametrize("target", ["glsl", "hlsl"])
def test_route_marks_what_no_declaration_reaches(target: str) -> None:
    """A condition and an atomic's argument are no declaration's: the route's SPIR-V
    still has NoContraction on all of it (``no_contraction``)."""
    require_route(target)
    missing, total = unmarked(ps.compile(mad_tested, target).binary)
    assert total >= 4 and not missing


@pytest.mark.parametrize("target", ["glsl", "hlsl"])
@pytest.mark.parametrize("case", ["math_more.scalars", "float_atomics.float_buffer",
                                  "helpers.scatter", "control_flow.loops", "tuples.unpack",
                                  "matrices.transform", "deep_expressions.long_sum"])
def test_golden_routes_have_no_contractible_op(case: str, target: str) -> None:
    """The goldens as the vulkan routes compile them: every float operation
    NoContraction, also where the compiler alone leaves some (DXC does not trace a
    helper's arguments, neither compiler a condition)."""
    require_route(target)
    ext = ps.targets.get(target).extension
    text = (GOLDEN / target / f"{case}.{ext}").read_text()
    entry = hlsl_entry(text) if target == "hlsl" else "main"
    missing, _ = unmarked(no_contraction(raw_spirv(text, target, entry)))
    assert not missing


def test_no_contraction_keeps_a_module_without_float_ops() -> None:
    """A module with nothing to decorate comes back unchanged; a malformed one raises."""
    require_route("glsl")
    text = (GOLDEN / "glsl" / "bitonic.bitonic_step.glsl").read_text()
    spv = raw_spirv(text, "glsl", "main")
    assert no_contraction(spv) == spv
    with pytest.raises(ValueError, match="SPIR-V"):
        no_contraction(spv[:-2])


# -- (c) the bits -------------------------------------------------------------------------
def triples(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """N random float32 triples; two thirds have c = -(a * b) (rounded), or a few ulps off
    it, where a fused a * b + c (the product's rounding error) and the separately rounded
    one (0, or the few ulps) differ."""
    a = rng.uniform(-4, 4, N).astype(np.float32)
    b = rng.uniform(-4, 4, N).astype(np.float32)
    c = rng.uniform(-16, 16, N).astype(np.float32)
    near = -(a * b)
    third = N // 3
    c[:third] = near[:third]
    steps = rng.integers(-3, 4, N - 2 * third).astype(np.float32)
    c[2 * third:] = near[2 * third:] + np.spacing(near[2 * third:]) * steps
    return a, b, c


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_rounds_each_operation_bit_for_bit(kernel: ps.Kernel, vk_route_dev: ps.Device,
                                      rng: np.random.Generator) -> None:
    """100,000 fresh triples: the device's a * b + c equals numpy's float32 (a * b) + c
    in every bit (and a * a - b * b + c numpy's); the fused result differs on a good part
    of them, so a driver that fused would fail here."""
    a, b, c = triples(rng)
    want, fused = REFERENCE[kernel](a, b, c)
    assert np.mean(fused.view(np.uint32) != want.view(np.uint32)) > 0.1
    dev = vk_route_dev
    out = dev.zeros(N, np.float32)
    kernel.launch(dev.array(a), dev.array(b), dev.array(c), out, threads=N, device=dev)
    got = out.numpy()
    bad = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
    assert bad.size == 0, (f"{bad.size} of {N} differ, e.g. a={a[bad[0]]!r} b={b[bad[0]]!r} "
                           f"c={c[bad[0]]!r}: got {got[bad[0]]!r}, want {want[bad[0]]!r}, "
                           f"fused {fused[bad[0]]!r}")
