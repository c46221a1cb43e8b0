"""The launch path refuses every bad argument with a LaunchError naming the kernel, the
parameter, what was expected and what was given, on every device, before anything
runs; and the results that used to be silently wrong are right."""

from __future__ import annotations

from enum import IntEnum

import numpy as np
import pytest

import pyshade as ps
from pyshade import f16, f32, i32, u32


class Mode(IntEnum):
    OFF = 0
    ON = 1


class Other(IntEnum):
    OFF = 0
    ON = 1


@ps.struct
class Params:
    n: u32
    mode: Mode
    gain: f32


@ps.kernel
def scalars(out: ps.Buffer[f32], a: f32, flag: bool, m: Mode, k: i32):
    i = ps.global_id().x
    if i < len(out):
        v = a + f32(k)
        if flag and m == Mode.ON:
            v = -v
        out[i] = v


@ps.kernel
def with_struct(out: ps.Buffer[f32], p: Params):
    i = ps.global_id().x
    if i < p.n and i < len(out):
        out[i] = p.gain if p.mode == Mode.ON else 0.0


@ps.kernel
def vectors(out: ps.Buffer[i32], iv: ps.ivec2, uv: ps.uvec2, fv: ps.vec4):
    i = ps.global_id().x
    if i < len(out):
        out[i] = iv.x + iv.y + i32(uv.x) + i32(uv.y) + i32(fv.w)


@ps.kernel
def copy(src: ps.Buffer[f32], dst: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(src):
        dst[i] = src[i]


@ps.kernel
def lengths(x: ps.Buffer[f32], out: ps.Buffer[u32]):
    if ps.global_id().x == 0:
        out[0] = len(x)


@ps.kernel
def lengths16(x: ps.Buffer[f16], out: ps.Buffer[u32]):
    if ps.global_id().x == 0:
        out[0] = len(x)


def _msg(fn, *args, **kw) -> str:
    with pytest.raises(ps.LaunchError) as info:
        fn.launch(*args, **kw)
    assert isinstance(info.value, ps.PyshadeError)
    return str(info.value)


GOOD = dict(a=1.5, flag=True, m=Mode.ON, k=2)


@pytest.mark.parametrize(("name", "value", "message"), [
    ("a", 1e300, "parameter 'a' is f32 and got 1e+300, which is out of range for f32 "
                 "(largest finite value 3.4028235e+38)"),
    ("a", 2**200, "parameter 'a' is f32 and got 1606938044258990275541962092341162602522"
                  "..., which is out of range for f32 (largest finite value 3.4028235e+38)"),
    ("a", 2**2000, "parameter 'a' is f32 and got 1148130695274254524232833201177681984022"
                   "..., which is out of range for every float type"),
    ("a", "1.0", "parameter 'a' is f32 and got '1.0', which is not a number"),
    ("a", None, "parameter 'a' is f32 and got None, which is not a number"),
    ("flag", "False", "parameter 'flag' is bool and got 'False', which is not a bool "
                      "(pass True or False)"),
    ("flag", None, "parameter 'flag' is bool and got None, which is not a bool "
                   "(pass True or False)"),
    ("flag", 2, "parameter 'flag' is bool and got 2, which is not a bool (pass True or False)"),
    ("flag", np.array([1, 0]), "parameter 'flag' is bool and got an array of int64 with shape "
                               "(2,), which is not a bool (pass True or False)"),
    ("m", 7, "parameter 'm' is Mode and got 7, which is not a Mode member (OFF=0, ON=1)"),
    ("m", Other.ON, "parameter 'm' is Mode and got <Other.ON: 1>, which is a member "
                    "of Other, not of Mode"),
    ("m", True, "parameter 'm' is Mode and got True, which is not a Mode member (OFF=0, ON=1)"),
    ("k", 2**31, "parameter 'k' is i32 and got 2147483648, which is out of range for i32 "
                 "(-2147483648..2147483647)"),
    ("k", 3.9, "parameter 'k' is i32 and got 3.9, which is not an integer (pass i32(x) or "
               "int(x) to convert explicitly)"),
    ("k", True, "parameter 'k' is i32 and got True, which is a bool, not an integer "
                "(pass int(True))"),
    ("k", Mode.ON, "parameter 'k' is i32 and got <Mode.ON: 1> (Mode), which is not an "
                   "integer"),
])
def test_scalar_values(dev: ps.Device, name: str, value: object, message: str) -> None:
    out = dev.zeros(8, np.float32)
    args = dict(GOOD, **{name: value})
    if name == "k" and value is Mode.ON:
        # an IntEnum member is an int: accepted for an integer parameter
        scalars.launch(out, **args, threads=8, device=dev)
        return
    assert _msg(scalars, out, **args, threads=8, device=dev) == "scalars(): " + message
    assert not out.numpy().any()


def test_scalar_values_that_fit(dev: ps.Device) -> None:
    out = dev.zeros(4, np.float32)
    # the largest finite f32 and values that round to it fit; inf and nan are values too
    for a in (3.4028235e38, 3.40282356e38, np.float32(2.5), float("inf"), -2**100):
        scalars.launch(out, a, np.bool_(True), 1, np.int32(0), threads=4, device=dev)
        assert (out.numpy() == -np.float32(a)).all()
    scalars.launch(out, 1.0, 0, Mode.OFF, -2**31, threads=4, device=dev)
    assert (out.numpy() == np.float32(1.0 - 2**31)).all()


@pytest.mark.parametrize(("value", "message"), [
    (Params(n=-1, mode=Mode.ON, gain=1.0), "parameter 'p' field 'n' is u32 and got -1, "
     "which is out of range for u32 (0..4294967295)"),
    (Params(n=3.9, mode=Mode.ON, gain=1.0), "parameter 'p' field 'n' is u32 and got 3.9, "
     "which is not an integer (pass u32(x) or int(x) to convert explicitly)"),
    (Params(n=4, mode=7, gain=1.0), "parameter 'p' field 'mode' is Mode and got 7, which is "
     "not a Mode member (OFF=0, ON=1)"),
    (Params(n=4, mode=Mode.ON, gain=1e39), "parameter 'p' field 'gain' is f32 and got 1e+39, "
     "which is out of range for f32 (largest finite value 3.4028235e+38)"),
    ("raw", "parameter 'p' is Params and got a record, which holds an invalid field: 7 is not "
     "a valid Mode member (valid: [0, 1])"),
    (np.zeros((), np.dtype([("n", "<u4"), ("mode", "<u4"), ("gain", "<i4")])),
     "parameter 'p' is Params and got a record, which is not a record of Params.dtype"),
    ((4, 1, 1.0), "parameter 'p' is Params and got (4, 1, 1.0) (tuple), which is not a Params "
     "instance"),
])
def test_struct_values(dev: ps.Device, value: object, message: str) -> None:
    out = dev.zeros(4, np.float32)
    if isinstance(value, str):
        value = np.zeros((), Params.dtype)
        value["n"], value["mode"] = 4, 7
    assert _msg(with_struct, out, value, threads=4, device=dev) == "with_struct(): " + message


def test_struct_record_accepted(dev: ps.Device) -> None:
    out = dev.zeros(4, np.float32)
    rec = Params(n=3, mode=Mode.ON, gain=2.5).to_numpy()
    with_struct.launch(out, rec, threads=4, device=dev)
    assert out.numpy().tolist() == [2.5, 2.5, 2.5, 0.0]


@pytest.mark.parametrize(("name", "value", "message"), [
    ("iv", [1.5, 2.7], "parameter 'iv' is ivec2 and got [1.5, 2.7] (list), which has component "
     "0 = 1.5, which is not an integer (pass i32(x) or int(x) to convert explicitly)"),
    ("uv", np.array([1, -1], np.int32), "parameter 'uv' is uvec2 and got an array of int32 with "
     "shape (2,), which has component 1 = np.int32(-1) (int32), which is out of range for u32 "
     "(0..4294967295)"),
    ("uv", [2**40, 0], "parameter 'uv' is uvec2 and got [1099511627776, 0] (list), which has "
     "component 0 = 1099511627776, which is out of range for u32 (0..4294967295)"),
    ("iv", "ab", "parameter 'iv' is ivec2 and got 'ab', which is not a sequence of 2 components"),
    ("iv", [1, float("nan")], "parameter 'iv' is ivec2 and got [1, nan] (list), which has "
     "component 1 = nan, which is not an integer (pass i32(x) or int(x) to convert "
     "explicitly)"),
    ("iv", [1, 2, 3], "parameter 'iv' is ivec2 and got [1, 2, 3] (list), which has 3 "
     "components, not 2"),
    ("fv", [0, 0, 0, 1e39], "parameter 'fv' is vec4 and got [0, 0, 0, 1e+39] (list), which has "
     "component 3 = 1e+39, which is out of range for f32 (largest finite value 3.4028235e+38)"),
    ("fv", 1.0, "parameter 'fv' is vec4 and got 1.0, which is not a sequence of 4 components"),
])
def test_vector_values(dev: ps.Device, name: str, value: object, message: str) -> None:
    out = dev.zeros(4, np.int32)
    args = dict(iv=[1, 2], uv=np.array([3, 4], np.uint32), fv=ps.vec4(0, 0, 0, 5))
    vectors.launch(out, **args, threads=4, device=dev)
    assert (out.numpy() == 15).all()
    args[name] = value
    assert _msg(vectors, out, **args, threads=4, device=dev) == "vectors(): " + message


@pytest.mark.parametrize(("kw", "message"), [
    (dict(threads=8.5), "threads must be a non-negative integer, got 8.5"),
    (dict(threads="8"), "threads must be a non-negative integer, got '8'"),
    (dict(threads=-1), "threads must be a non-negative integer, got -1"),
    (dict(threads=True), "threads must be a non-negative integer, got True"),
    (dict(groups=(1.5, 1, 1)), "groups must be a non-negative int or a tuple of 1 to 3 of "
     "them, got (1.5, 1, 1) (tuple)"),
    (dict(groups="1"), "groups must be a non-negative int or a tuple of 1 to 3 of them, "
     "got '1'"),
    (dict(groups=(-1, 1, 1)), "groups must be a non-negative int or a tuple of 1 to 3 of "
     "them, got (-1, 1, 1) (tuple)"),
    (dict(groups=(1, 1, 1, 1)), "groups must be a non-negative int or a tuple of 1 to 3 of "
     "them, got (1, 1, 1, 1) (tuple)"),
    (dict(threads=4, groups=1), "launch needs exactly one of threads=n or groups=(gx, gy, gz)"),
    (dict(), "launch needs exactly one of threads=n or groups=(gx, gy, gz)"),
])
def test_grid_values(dev: ps.Device, kw: dict, message: str) -> None:
    src, dst = dev.zeros(4, np.float32), dev.zeros(4, np.float32)
    assert _msg(copy, src, dst, device=dev, **kw) == "copy(): " + message


@pytest.mark.parametrize("ws", [True, 0, -1, (64, 0, 1), 64.0, (1, 2, 3, 4), "64", (), None])
def test_workgroup_size_values(ws: object) -> None:
    with pytest.raises(ps.LaunchError) as info:
        ps.kernel(workgroup_size=ws)(copy.fn)
    assert str(info.value) == ("kernel copy: workgroup_size must be a positive int or a tuple "
                               f"of 1 to 3 positive ints, got {ws!r}"
                               + (f" ({type(ws).__name__})" if isinstance(ws, tuple) else ""))


def test_workgroup_size_over_the_device_limit(dev: ps.Device) -> None:
    big = ps.kernel(workgroup_size=(2048, 1, 1))(copy.fn)
    src, dst = dev.zeros(4, np.float32), dev.zeros(4, np.float32)
    msg = _msg(big, src, dst, threads=4, device=dev)
    assert msg.startswith("copy(): workgroup_size (2048, 1, 1) has 2048 invocations in x; "
                          f"{dev.name} ({dev.adapter}) allows at most "), msg
    wide = ps.kernel(workgroup_size=(32, 32, 2))(copy.fn)
    msg = _msg(wide, src, dst, threads=4, device=dev)
    assert msg == (f"copy(): workgroup_size (32, 32, 2) has 2048 invocations; {dev.name} "
                   f"({dev.adapter}) allows at most {dev.max_workgroup_invocations} per "
                   "workgroup")


def test_buffer_arguments(dev: ps.Device) -> None:
    src, dst = dev.zeros(4, np.float32), dev.zeros(4, np.float32)
    m = _msg(copy, src, np.zeros(4, np.int32), threads=4, device=dev)
    assert m == "copy(): parameter 'dst' needs dtype float32, got int32 with shape (4,)"
    m = _msg(copy, src, [1.0, 2.0], threads=4, device=dev)
    assert m == ("copy(): parameter 'dst' is a Buffer and got [1.0, 2.0] (list), which is not "
                 "a device array or numpy array")
    m = _msg(copy, src, np.zeros((2, 2), np.float32), threads=4, device=dev)
    assert m == "copy(): parameter 'dst' needs a 1-D array, got shape (2, 2) (pass " \
                "arr.reshape(-1))"
    ro = np.zeros(4, np.float32)
    ro.flags.writeable = False
    m = _msg(copy, src, ro, threads=4, device=dev)
    assert m == ("copy(): parameter 'dst' is written by the kernel and got a read-only "
                 "numpy array")
    copy.launch(ro, dst, threads=4, device=dev)            # read-only input is fine
    m = _msg(copy, src, src, threads=4, device=dev)
    assert m == ("copy(): parameters 'src' and 'dst' are the same array, and the kernel writes "
                 "'dst': pass separate arrays (the result would depend on the GPU)")
    host = np.arange(8, dtype=np.float32)
    m = _msg(copy, host[:4], host[2:6], threads=4, device=dev)
    assert m.startswith("copy(): parameters 'src' and 'dst' are the same array")
    assert (host == np.arange(8)).all()


@ps.kernel
def add_pair(a: ps.Buffer[f32], b: ps.Buffer[f32], out: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(out):
        out[i] = a[i] + b[i]


def test_one_array_read_through_two_parameters(dev: ps.Device,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # Only a written parameter may not share its array: two read-only bindings of one
    # array are fine, on the first launch and on the binder's fast path after it (which
    # skips the general checks).
    from pyshade.launch.binder import Binder
    general = []
    check = Binder._check_aliasing
    monkeypatch.setattr(Binder, "_check_aliasing",
                        lambda self, *a: general.append(1) or check(self, *a))
    x = np.random.default_rng(7).standard_normal(300).astype(np.float32)
    arr, out = dev.array(x), dev.zeros(300, np.float32)
    for _ in range(2):
        out.write(np.zeros(300, np.float32))
        add_pair.launch(arr, arr, out, threads=300, device=dev)
        np.testing.assert_array_equal(out.numpy(), x + x)
    assert len(general) <= 1          # the second launch took the fast path
    m = _msg(add_pair, arr, out, out, threads=300, device=dev)
    assert m.startswith("add_pair(): parameters 'b' and 'out' are the same array")


@ps.kernel
def vec3_sum(pts: ps.Buffer[ps.vec3], out: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(out):
        out[i] = pts[i].x + pts[i].y + pts[i].z


def test_vec3_buffer_arguments(dev: ps.Device) -> None:
    out = dev.zeros(4, np.float32)
    m = _msg(vec3_sum, np.zeros((4, 4), np.float32), out, threads=4, device=dev)
    assert m == ("vec3_sum(): parameter 'pts' needs float32 with shape (n, 3), got float32 "
                 "with shape (4, 4)")
    m = _msg(vec3_sum, dev.zeros((4, 3), np.int32), out, threads=4, device=dev)
    assert m == ("vec3_sum(): parameter 'pts' needs float32 with shape (n, 3), got int32 "
                 "with shape (4, 3)")
    m = _msg(vec3_sum, dev.zeros(12, np.float32), out, threads=4, device=dev)
    assert m == ("vec3_sum(): parameter 'pts' needs float32 with shape (n, 3), got float32 "
                 "with shape (12,)")
    vec3_sum.launch(np.arange(12, dtype=np.float32).reshape(4, 3), out, threads=4, device=dev)
    assert out.numpy().tolist() == [3.0, 12.0, 21.0, 30.0]


def test_struct_buffer_dtype_must_match(dev: ps.Device) -> None:
    @ps.kernel
    def gains(ps_: ps.Buffer[Params], out: ps.Buffer[f32]):
        i = ps.global_id().x
        if i < len(out):
            out[i] = ps_[i].gain

    same_size = np.dtype([("a", "<u4"), ("b", "<u4"), ("c", "<f4")])
    assert same_size.itemsize == Params.dtype.itemsize
    out = dev.zeros(2, np.float32)
    m = _msg(gains, np.zeros(2, same_size), out, threads=2, device=dev)
    assert m == ("gains(): parameter 'ps_' needs dtype [('n', '<u4'), ('mode', '<u4'), "
                 "('gain', '<f4')], got [('a', '<u4'), ('b', '<u4'), ('c', '<f4')] with shape "
                 "(2,)")
    m = _msg(gains, dev.array(np.zeros(2, same_size)), out, threads=2, device=dev)
    assert m.startswith("gains(): parameter 'ps_' needs dtype [('n', '<u4')")
    good = np.zeros(2, Params.dtype)
    good["gain"] = [1.5, -2.0]
    gains.launch(dev.array(good), out, threads=2, device=dev)
    assert out.numpy().tolist() == [1.5, -2.0]


def test_argument_count_and_names(dev: ps.Device) -> None:
    src, dst = dev.zeros(4, np.float32), dev.zeros(4, np.float32)
    assert _msg(copy, src, threads=4, device=dev) == "copy(): missing argument 'dst'"
    assert _msg(copy, src, dst, src, threads=4, device=dev) == \
        "copy() takes 2 arguments, got 3"
    assert _msg(copy, src, dst, dts=1, threads=4, device=dev) == \
        "copy() has no parameter 'dts' (parameters: src, dst)"
    assert _msg(copy, src, dst, dst=dst, threads=4, device=dev) == \
        "copy(): parameter 'dst' given twice"


# ---------------------------------------------------------------- silent wrong results


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 17])
def test_len_is_exact(dev: ps.Device, n: int) -> None:
    out = dev.zeros(1, np.uint32)
    lengths.launch(dev.array(np.zeros(n, np.float32)), out, threads=1, device=dev)
    assert out.numpy()[0] == n


@pytest.mark.parametrize("n", [1, 3, 5, 7, 9, 10])
def test_len_is_exact_f16(dev: ps.Device, n: int) -> None:
    feats = getattr(dev, "features", {"shader-f16"})    # wgpu: "shader-f16"; vulkan: "f16"
    if not {"shader-f16", "f16"} & set(feats):
        pytest.skip(f"{dev.adapter} has no shader-f16 (f16 kernels cannot run there)")
    out = dev.zeros(1, np.uint32)
    lengths16.launch(dev.array(np.zeros(n, np.float16)), out, threads=1, device=dev)
    assert out.numpy()[0] == n


def test_batch_that_raises_runs_what_was_recorded(dev: ps.Device) -> None:
    src = dev.array(np.arange(4, dtype=np.float32))
    dst = dev.zeros(4, np.float32)
    with pytest.raises(KeyError), dev.batch():
        copy.launch(src, dst, threads=4, device=dev)
        raise KeyError("stop")
    assert dst.numpy().tolist() == [0, 1, 2, 3]
