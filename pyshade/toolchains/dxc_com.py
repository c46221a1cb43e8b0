"""DXC's COM calls through ``ctypes``, standard library only: ``toolchains/dxc.py`` runs
them in a helper process (this file as a script), or in its own process on Windows and
with ``PYSHADE_DXC_IN_PROCESS=1``.

Why a helper process: at ``exit()`` the C runtime destroys ``libdxcompiler``'s C++
statics (LLVM's function-local ``ManagedStaticMutex`` frees its pthread mutex) before
``_dl_fini`` runs the library's ``DllShutdown`` destructor, whose ``llvm_shutdown`` then
locks freed memory; where that memory has been reused the process never ends (a CI run
hung there after its last test; ``dlclose`` cannot help, the library is NODELETE). The
helper leaves with ``os._exit`` when its pipe closes, so no exit handler of the library
ever runs, and a crash inside DXC ends the helper, not the caller.

Protocol on stdin/stdout: frames of a 4-byte little-endian length and a pickle; a
request ``(op, args)`` with ``op`` one of ``version``, ``compile``, ``validate``; the
reply ``("ok", value)`` or ``("err", message)``.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import struct
import sys
import uuid
from typing import Any

_CLSID_COMPILER = "73e22d93-e6ce-47f3-b5bf-f0664f39c1b0"
_CLSID_VALIDATOR = "8ca3e215-f728-4cf3-8cdd-88af917587a1"
_CLSID_UTILS = "6245d6af-66e0-48fd-80b4-4d271796748c"
_IID_COMPILER3 = "228b4687-5a6a-4730-900c-9702b2203f54"
_IID_RESULT = "58346cda-dde7-4497-9461-6f87af5e0659"
_IID_VALIDATOR = "a6e82bd2-1fd7-4826-9811-2857e797f49a"
_IID_UTILS = "4605c4cb-2019-492a-ada4-65f20bb7d67f"
_IID_VERSION = "b04f5b50-2059-4f12-a8ff-a1e0cde1cc7e"
# First method after IUnknown's in a vtable: outside Windows, DXC's IUnknown has a
# virtual destructor (two more slots, Itanium ABI).
_BASE = 3 if sys.platform == "win32" else 5
_RELEASE = 2
_libs: dict[str, Any] = {}


class DxcFailure(RuntimeError):
    """DXC could not be loaded or could not run (not a compile error of the source)."""


class _Buffer(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p), ("size", ctypes.c_size_t),
                ("encoding", ctypes.c_uint32)]


def load(path: str) -> Any:
    """The DXC library at ``path`` (loaded once)."""
    lib = _libs.get(path)
    if lib is None:
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            raise DxcFailure(f"the DXC library could not be loaded ({exc})") from None
        lib.DxcCreateInstance.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                          ctypes.POINTER(ctypes.c_void_p)]
        lib.DxcCreateInstance.restype = ctypes.c_int32
        _libs[path] = lib
    return lib


def _guid(text: str) -> Any:
    return (ctypes.c_ubyte * 16).from_buffer_copy(uuid.UUID(text).bytes_le)


def _slot(obj: int, slot: int, restype: Any, *argtypes: Any) -> Any:
    vtable = ctypes.cast(obj, ctypes.POINTER(ctypes.POINTER(ctypes.c_void_p)))[0]
    fn = ctypes.CFUNCTYPE(restype, ctypes.c_void_p, *argtypes)(vtable[slot])
    return lambda *args: fn(obj, *args)


def _method(obj: int, index: int, restype: Any, *argtypes: Any) -> Any:
    """The ``index``-th method (counted after IUnknown's) of COM object ``obj``."""
    return _slot(obj, _BASE + index, restype, *argtypes)


class _Com:
    """COM objects made in one call, released at its end."""

    def __init__(self, lib: Any) -> None:
        self.lib = lib
        self.objects: list[int] = []

    def __enter__(self) -> _Com:
        return self

    def __exit__(self, *exc: Any) -> None:
        for obj in reversed(self.objects):
            _slot(obj, _RELEASE, ctypes.c_uint32)()

    def keep(self, ptr: ctypes.c_void_p) -> int | None:
        if ptr.value:
            self.objects.append(ptr.value)
        return ptr.value

    def create(self, clsid: str, iid: str) -> int:
        out = ctypes.c_void_p()
        hr = self.lib.DxcCreateInstance(ctypes.byref(_guid(clsid)), ctypes.byref(_guid(iid)),
                                        ctypes.byref(out))
        if hr != 0 or not out.value:
            raise DxcFailure(f"DxcCreateInstance failed ({hr & 0xffffffff:#x})")
        return self.keep(out)

    def out(self, obj: int, index: int, *args: Any) -> int | None:
        """Call a method whose last parameter receives an object; keep that object."""
        ptr = ctypes.c_void_p()
        types = [type(a) if not isinstance(a, int) else ctypes.c_uint32 for a in args]
        _method(obj, index, ctypes.c_int32, *types, ctypes.POINTER(ctypes.c_void_p))(
            *args, ctypes.byref(ptr))
        return self.keep(ptr)


def _blob(obj: int | None) -> bytes:
    """The bytes of an ``IDxcBlob``."""
    if not obj:
        return b""
    ptr = _method(obj, 0, ctypes.c_void_p)()
    n = _method(obj, 1, ctypes.c_size_t)()
    return ctypes.string_at(ptr, n) if n else b""


def _status(com: _Com, result: int) -> tuple[int, str, bytes]:
    """(status, log, output) of an ``IDxcOperationResult``."""
    status = ctypes.c_int32()
    _method(result, 0, ctypes.c_int32, ctypes.POINTER(ctypes.c_int32))(ctypes.byref(status))
    log = _blob(com.out(result, 2)).decode("utf-8", errors="replace")
    out = _blob(com.out(result, 1)) if status.value == 0 else b""
    return status.value, log, out


def op_version(path: str) -> tuple[int, int]:
    """(major, minor) of the DXC library at ``path``."""
    with _Com(load(path)) as com:
        info = com.create(_CLSID_COMPILER, _IID_VERSION)
        major, minor = ctypes.c_uint32(), ctypes.c_uint32()
        _method(info, 0, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)(
            ctypes.byref(major), ctypes.byref(minor))
        return major.value, minor.value


def op_compile(path: str, source: str, args: list[str]) -> tuple[int, str, bytes]:
    """``IDxcCompiler3::Compile`` of ``source`` with command line ``args``:
    (status, log, binary); ``DxcFailure`` when DXC could not run at all."""
    data = source.encode("utf-8")
    buf = _Buffer(ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p), len(data), 65001)
    argv = (ctypes.c_wchar_p * len(args))(*args)
    with _Com(load(path)) as com:
        compiler = com.create(_CLSID_COMPILER, _IID_COMPILER3)
        result = ctypes.c_void_p()
        hr = _method(compiler, 0, ctypes.c_int32, ctypes.POINTER(_Buffer), ctypes.c_void_p,
                     ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p,
                     ctypes.POINTER(ctypes.c_void_p))(
            ctypes.byref(buf), argv, len(args), None, ctypes.byref(_guid(_IID_RESULT)),
            ctypes.byref(result))
        if hr != 0 or not com.keep(result):
            raise DxcFailure(f"DXC could not run ({hr & 0xffffffff:#x})")
        return _status(com, result.value)


def op_validate(path: str, binary: bytes) -> tuple[int, str]:
    """DXC's validator on a DXIL container: (status, log)."""
    with _Com(load(path)) as com:
        validator = com.create(_CLSID_VALIDATOR, _IID_VALIDATOR)
        utils = com.create(_CLSID_UTILS, _IID_UTILS)
        blob = ctypes.c_void_p()
        # IDxcUtils::CreateBlob(data, size, codepage, out): the 4th method
        _method(utils, 3, ctypes.c_int32, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint32,
                ctypes.POINTER(ctypes.c_void_p))(binary, len(binary), 0, ctypes.byref(blob))
        if not com.keep(blob):
            raise DxcFailure("DXC could not wrap the DXIL for its validator")
        result = com.out(validator, 0, ctypes.c_void_p(blob.value), 0)
        status, log, _ = _status(com, result)
        return status, log


OPS = {"version": op_version, "compile": op_compile, "validate": op_validate}


def read_frame(stream: Any) -> Any:
    """One pickled frame from ``stream``, or None at its end."""
    head = stream.read(4)
    if len(head) < 4:
        return None
    (n,) = struct.unpack("<I", head)
    body = stream.read(n)
    if len(body) < n:
        return None
    return pickle.loads(body)


def write_frame(stream: Any, value: Any) -> None:
    """Write ``value`` as one pickled frame and flush."""
    body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<I", len(body)) + body)
    stream.flush()


def serve(path: str) -> None:
    """Answer requests on stdin until it closes, then leave with ``os._exit`` (no exit
    handler of the library runs)."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr          # a stray print must not corrupt the protocol
    while True:
        req = read_frame(stdin)
        if req is None:
            os._exit(0)
        op, args = req
        try:
            reply: tuple = ("ok", OPS[op](path, *args))
        except DxcFailure as exc:
            reply = ("err", str(exc))
        except Exception as exc:  # noqa: BLE001  (reported to the caller, which raises)
            reply = ("err", f"{type(exc).__name__}: {exc}")
        write_frame(stdout, reply)


if __name__ == "__main__":
    serve(sys.argv[1])
