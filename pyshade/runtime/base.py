"""The one Device API that every backend implements.

A device owns arrays (``DeviceArray``) and runs ``Compiled`` kernels. The
kernel object (``pyshade.kernel``) does all argument checking and packing; a
backend only receives, per launch, the compiled program, the buffers in
binding order, the packed parameter block and the group counts.
"""

from __future__ import annotations

import contextlib
import copy
import math
import struct
from typing import TYPE_CHECKING, Any, Iterator, Sequence

import numpy as np

from ..artifact import Compiled, check_requirements
from ..errors import BackendUnavailable, CompileError
from ..interface import BufferSlot, Layout, ParamBlock

# The records devices consume, defined below the runtime (``interface``, ``artifact``)
# and re-exported here for the backends.
__all__ = ["LLVMPIPE_NOTE", "BufferSlot", "Compiled", "Device", "DeviceArray", "Layout", "ParamBlock",
           "check_requirements", "check_target", "choose_adapter", "host_data",
           "shape_bytes", "shape_tuple", "with_group_counts"]


#: ``Device.note`` of an adapter that is Mesa's llvmpipe, through Vulkan or wgpu
LLVMPIPE_NOTE = ("Mesa's llvmpipe/lavapipe: Mesa 22.3 ends every shader loop after 65535 "
                 "iterations (kernels that loop longer give wrong results)")


def with_group_counts(params: bytes, offset: int, groups: Sequence[int]) -> bytes:
    """The parameter block ``params`` with the three group counts of the dispatch at
    ``offset`` (``ParamBlock.groups``: where the kernel's language has no built-in for
    them, the device writes them at each dispatch)."""
    return b"".join((params[:offset], struct.pack("<3I", *groups), params[offset + 12:]))


def check_target(compiled: Compiled, target: str, device: str) -> None:
    """A CompileError unless ``compiled`` is ``target`` code (what ``device`` runs)."""
    if compiled.target != target:
        raise CompileError(f"'{compiled.entry}': the {device} device runs {target.upper()}, "
                           f"got target {compiled.target!r}", target=compiled.target,
                           source=compiled.source)


def host_data(data: Any, dtype: Any = None) -> np.ndarray:
    """What ``Device.array(data, dtype)`` uploads: a C-contiguous numpy array of at least
    one dimension (a device array is downloaded first)."""
    if isinstance(data, DeviceArray):
        data = data.numpy()
    host = np.ascontiguousarray(np.asarray(data, dtype=dtype))
    return host.reshape(1) if host.ndim == 0 else host


def choose_adapter(found: Sequence[Any], index: int, backend: str, what: str,
                   label: Any) -> Any:
    """``found[index]``, else BackendUnavailable listing ``"backend:i (label(a))"``."""
    if not 0 <= index < len(found):
        names = ", ".join(f"{backend}:{i} ({label(a)})" for i, a in enumerate(found))
        raise BackendUnavailable(f"there is no {what} {index}: found {names}")
    return found[index]


def shape_tuple(shape: int | Sequence[int]) -> tuple[int, ...]:
    """``empty``/``zeros``' shape argument as a tuple of ints."""
    return (int(shape),) if np.isscalar(shape) else tuple(int(s) for s in shape)  # type: ignore[arg-type,union-attr]


def shape_bytes(shape: tuple[int, ...], dtype: np.dtype) -> int:
    """The bytes of an array of ``shape`` (a tuple of ints) and ``dtype``: ``math.prod``,
    as ``numpy.prod`` costs 4 us, a tenth of a small ``reduce`` on the H200."""
    return math.prod(shape) * dtype.itemsize


class DeviceArray:
    """A 1-D array that lives on a device. ``numpy()`` downloads it."""

    device: "Device"
    dtype: np.dtype
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        """Number of elements."""
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def nbytes(self) -> int:
        """Size in bytes."""
        return self.size * self.dtype.itemsize

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    def __len__(self) -> int:
        return self.shape[0] if self.shape else 1

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        # np.asarray(a) and np.array(a) give the values (a download), not a 0-d object
        # array holding the device array.
        out = self.numpy()
        return out if dtype is None else out.astype(dtype, copy=False)

    if TYPE_CHECKING:
        # Static view only (no such methods at run time): a device array is what a
        # kernel's ``Buffer[T]`` parameter takes at launch, and the type checkers'
        # ``Buffer`` is a protocol of ``[]`` and ``len`` (pyshade/__init__.pyi).
        def __getitem__(self, i: int, /) -> Any: ...
        def __setitem__(self, i: int, v: Any, /) -> None: ...

    def numpy(self) -> np.ndarray:
        """Copy the array to the host and return it."""
        raise NotImplementedError

    def write(self, data: np.ndarray) -> None:
        """Overwrite the array's contents with ``data`` (same dtype and size)."""
        raise NotImplementedError

    def _writable(self, data: np.ndarray) -> np.ndarray:
        """``data`` as the flat bytes ``write`` stores, after checking its dtype and size
        (ValueError naming the mismatch)."""
        src = np.ascontiguousarray(data)
        if src.dtype != self.dtype:
            raise ValueError(f"write: dtype {src.dtype} does not match the array's {self.dtype}")
        if src.size != self.size:
            raise ValueError(f"write: {src.size} elements given, the array has {self.size}")
        return src.reshape(-1).view(np.uint8)

    def view(self, dtype: Any) -> "DeviceArray":
        """The same memory read as elements of another dtype of the same size (no copy):
        ``keys = arr.view(np.uint32)`` for the bits of a float32 array."""
        dt = np.dtype(dtype)
        if dt.itemsize != self.dtype.itemsize:
            raise ValueError(f"view: {dt} has {dt.itemsize}-byte elements, the array's "
                             f"{self.dtype} has {self.dtype.itemsize}")
        out = copy.copy(self)
        out.dtype = dt
        return out

    def __repr__(self) -> str:
        # numpy's own formatting of the values (summarised when large), then where they
        # live; a device that cannot read them back shows the shape alone.
        try:
            body = np.array2string(self.numpy(), separator=", ", prefix="DeviceArray(")
        except Exception as e:  # noqa: BLE001 - a repr must not raise
            body = f"<values unreadable: {type(e).__name__}: {e}>"
        return (f"DeviceArray({body}, dtype={self.dtype}, shape={self.shape}, "
                f"device={self.device.name!r})")

    def _repr_html_(self) -> str:
        """A notebook's view: a table of the values (numpy's summary when large) with the
        dtype, shape and device."""
        import html
        try:
            body = html.escape(np.array2string(self.numpy(), separator=", "))
        except Exception as e:  # noqa: BLE001
            body = html.escape(f"values unreadable: {e}")
        return ("<table><tr><th>device</th><th>dtype</th><th>shape</th></tr>"
                f"<tr><td>{html.escape(self.device.name)}</td><td>{self.dtype}</td>"
                f"<td>{self.shape}</td></tr></table><pre>{body}</pre>")


class Device:
    """A place to run kernels. Subclasses: CpuDevice, WgpuDevice, ..."""

    name: str = "?"        # "cpu", "wgpu", ...
    backend: str = "?"     # same as name for the built-in devices
    target: str = "?"      # the language this device consumes: "python", "wgsl", ...
    adapter: str = "?"     # human-readable hardware / driver description
    # Launch limits, checked by the launch path before a driver sees them. The
    # defaults are CUDA's; GPU devices report their adapter's.
    max_groups_per_dim: int = 65535
    max_workgroup_size: tuple[int, int, int] = (1024, 1024, 64)
    max_workgroup_invocations: int = 1024
    # What the launch path gives the toolchain for this device's kernels (compile_source's
    # ``validate``): False, or what the code is built for (the cuda device: "sm_90").
    compile_with: Any = False

    def array(self, data: Any, dtype: Any = None) -> DeviceArray:
        """Upload ``data`` (array-like) and return a device array."""
        raise NotImplementedError

    def shares_arrays(self, other: "Device") -> bool:
        """Whether the arrays of device ``other`` can be bound here as they are (the cpu
        devices with and without the race detector share theirs)."""
        return other is self

    def empty(self, shape: int | Sequence[int], dtype: Any = np.float32) -> DeviceArray:
        """A device array whose contents are unspecified (every device zeroes it today)."""
        return self.zeros(shape, dtype)

    def zeros(self, shape: int | Sequence[int], dtype: Any = np.float32) -> DeviceArray:
        """A zero-filled device array."""
        return self.array(np.zeros(shape, dtype=dtype))

    @contextlib.contextmanager
    def batch(self) -> Iterator["Device"]:
        """Record launches and submit them together where the API allows."""
        yield self

    def synchronize(self) -> None:
        """Wait for all submitted work."""

    def flush(self) -> None:
        """Submit recorded launches without waiting (a GPU device may hold them back
        to submit many at once)."""

    def launch_compiled(self, compiled: Compiled, buffers: Sequence[DeviceArray],
                        params: bytes | None, groups: tuple[int, int, int]) -> None:
        """Run ``compiled`` over ``groups`` workgroups with the given bindings."""
        raise NotImplementedError

    def checked_launch(self, compiled: Compiled, buffers: Sequence[DeviceArray],
                       params: bytes | None, groups: Sequence[int]) -> None:
        """``launch_compiled`` for devices that implement ``prepare``/``run_prepared``:
        that public entry point bypasses the launch path, so it checks here what the
        binder would (buffer count and device, group counts, parameter block size)."""
        from ..errors import LaunchError
        layout = compiled.layout
        if len(buffers) != len(layout.buffers):
            raise LaunchError(f"'{compiled.entry}' binds {len(layout.buffers)} buffers, "
                              f"{len(buffers)} given")
        g = tuple(int(x) for x in groups)
        limits = getattr(self, "max_group_counts", (self.max_groups_per_dim,) * 3)
        if len(g) != 3 or min(g) < 0 or any(x > m for x, m in zip(g, limits)):
            raise LaunchError(f"group counts {g} must be 3 non-negative counts within this "
                              f"adapter's limits {tuple(limits)}")
        for slot, arr in zip(layout.buffers, buffers):
            if not isinstance(arr, DeviceArray) or not self.shares_arrays(arr.device):
                raise LaunchError(f"argument '{slot.name}' is not an array on this device "
                                  f"({self!r}): got {arr!r}")
        pb = layout.params
        if pb is not None:
            raw = bytes(params or b"")
            if len(raw) > pb.size:
                raise LaunchError(f"parameter block of {len(raw)} bytes exceeds its declared "
                                  f"size {pb.size}")
            params = raw + bytes(pb.size - len(raw))
        if min(g) == 0:
            return
        self.run_prepared(self.prepare(compiled), buffers, params, g)  # type: ignore[arg-type]

    def prepare(self, compiled: Compiled) -> Any:
        """A handle for ``run_prepared`` (e.g. a pipeline), made once per binder."""
        return compiled

    def run_prepared(self, handle: Any, buffers: Sequence[DeviceArray], params: bytes | None,
                     groups: tuple[int, int, int]) -> None:
        """The launch path's fast call: arguments already checked and packed."""
        self.launch_compiled(handle, buffers, params, groups)

    def __repr__(self) -> str:
        return f"<pyshade.Device {self.name}: {self.adapter}>"
