"""The persistent compile cache: a kernel compiled once is not translated or compiled
again by a later process.

Each entry is the whole ``Compiled`` record of one specialisation for one target and
toolchain check (source text, binary: SPIR-V, PTX/CUBIN, DXIL, WGSL, a Python code
object; layout, requirements), stored under a key made of pyshade's and Python's
versions (and the size and mtime of each of pyshade's own modules), the kernel's
file, name and source as it was defined, its specialisation,
the target, the toolchain's identity and its options. An entry also lists what the
translation depended on beyond the kernel's own source: the contents of every file a
helper, struct or enum came from, and the values of the module-level names it read. A
later process uses the entry only when all of those are still the same; otherwise it
translates again and replaces the entry.

Where: ``PYSHADE_CACHE_DIR``, else the user cache directory (``$XDG_CACHE_HOME/pyshade``
or ``~/.cache/pyshade``; ``~/Library/Caches/pyshade`` on macOS;
``%LOCALAPPDATA%\\pyshade\\Cache`` on Windows). ``PYSHADE_CACHE=0`` turns it off.
Writes are atomic (a temporary file renamed into place), so several processes may fill
the cache at once; an entry that is truncated or corrupted fails its checksum and is
rebuilt. Kernels that read a closure value, or a value that has no stable description
(an arbitrary object), are not cached on disk.
"""

from __future__ import annotations

import enum
import marshal
import os
import pickle
import platform
import sys
import types
import typing
from dataclasses import replace
from typing import Any

try:    # the C module hashlib would load with OpenSSL: a warm start skips those 4 ms
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - an interpreter without the builtin module
    from hashlib import blake2b as _blake2b


def _digest(data: bytes) -> bytes:
    return _blake2b(data, digest_size=32).digest()

__all__ = ["cache_dir", "load", "stats", "store"]

MAGIC = b"PYSHADE-CACHE-1\n"
#: What this process did with the cache (tests and benchmarks read it).
stats = {"hits": 0, "misses": 0, "stores": 0, "corrupt": 0, "uncacheable": 0}
_file_hashes: dict[tuple, str] = {}


def cache_dir() -> str | None:
    """The cache directory, or None when the cache is off (``PYSHADE_CACHE=0``)."""
    if os.environ.get("PYSHADE_CACHE", "1") == "0":
        return None
    env = os.environ.get("PYSHADE_CACHE_DIR")
    if env:
        return env
    home = os.path.expanduser("~")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Caches", "pyshade")
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return os.path.join(base, "pyshade", "Cache")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    return os.path.join(base, "pyshade")


class _Uncacheable(Exception):
    pass


def _fp(v: Any) -> str:
    """A description of ``v`` that is the same in every process where ``v`` means the
    same; _Uncacheable for values that have none."""
    if v is None or isinstance(v, (bool, int, float, complex, str, bytes)):
        return f"{type(v).__name__}:{v!r}"
    if isinstance(v, enum.Enum):
        return f"enum:{type(v).__module__}.{type(v).__qualname__}.{v.name}"
    if isinstance(v, (tuple, list, frozenset)):
        items = sorted(map(_fp, v)) if isinstance(v, frozenset) else map(_fp, v)
        return f"{type(v).__name__}({','.join(items)})"
    if isinstance(v, typing.TypeVar):
        return f"typevar:{v.__name__}"
    if isinstance(v, (type, types.FunctionType, types.BuiltinFunctionType)):
        return f"obj:{getattr(v, '__module__', '?')}.{v.__qualname__}"
    from . import types as T
    if isinstance(v, T.Type):
        return f"type:{type(v).__name__}:{v}"
    if isinstance(v, T.ConstAnnotation) or type(v).__module__.startswith("pyshade"):
        return f"pyshade:{type(v).__name__}:{v!r}"
    raise _Uncacheable(type(v).__name__)


def _file_hash(filename: str) -> str:
    """Digest of a file's text as this process translated it (the snapshot taken when a
    kernel of it was defined, else as linecache has it)."""
    from .frontend import source
    lines = source._snapshots.get(filename)
    if lines is None:
        import linecache
        lines = linecache.getlines(filename)
    key = (filename, len(lines), id(lines))
    hit = _file_hashes.get(key)
    if hit is None:
        hit = _file_hashes[key] = _digest("".join(lines).encode()).hex()
    return hit


def _validate_fp(validate: Any) -> str:
    # A WgpuDevice validates WGSL with its naga: every wgpu device checks the same way.
    if validate is False or validate is True or isinstance(validate, str):
        return repr(validate)
    return f"device:{type(validate).__name__}"


def _toolchain_id(target: str) -> str:
    from . import targets
    fn = targets.get(target).compile()
    mod = sys.modules.get(fn.__module__)
    ident = getattr(mod, "toolchain_id", None)
    try:
        return f"{fn.__module__}:{ident() if ident else ''}"
    except Exception as e:  # noqa: BLE001 - a missing toolchain: compiling will say so
        raise _Uncacheable(str(e)) from None


_SELF: list[str] = []


def _pyshade_fp() -> str:
    """Size and mtime of every module of pyshade itself: an edited emitter (a developer's
    checkout, between releases) must not get an entry translated by the old one."""
    if not _SELF:
        root = os.path.dirname(os.path.abspath(__file__))
        stats = []
        for d, _dirs, files in os.walk(root):
            for f in sorted(files):
                if f.endswith(".py"):
                    st = os.stat(os.path.join(d, f))
                    stats.append((os.path.relpath(os.path.join(d, f), root), st.st_size,
                                  st.st_mtime_ns))
        _SELF.append(_digest(repr(sorted(stats)).encode()).hex())
    return _SELF[0]


def _key(kernel: Any, target: str, spec: Any, validate: Any) -> str:
    from . import __version__
    from .frontend import source
    code = kernel.fn.__code__
    lines, start = source._captured[code]
    parts = [__version__, _pyshade_fp(), sys.version, platform.machine(), code.co_filename,
             kernel.__qualname__, start, "".join(lines), kernel.workgroup_size,
             [(_fp(tv), _fp(t)) for tv, t in spec.typevars],
             [(n, _fp(v)) for n, v in spec.consts], spec.folded, target,
             _validate_fp(validate), _toolchain_id(target)]
    return _digest(repr(parts).encode()).hex()


def _path(key: str) -> str | None:
    d = cache_dir()
    return None if d is None else os.path.join(d, key[:2], f"{key}.bin")


def _manifest(kernel: Any, prog: Any) -> dict:
    """What the translation depended on besides the kernel's own source."""
    files = {prog.kernel.src.filename} | {f.src.filename for f in prog.funcs}
    for t in [*prog.structs, *prog.enums]:
        cls = getattr(t, "cls", None) or getattr(t, "py_class", None)
        mod = sys.modules.get(getattr(cls, "__module__", "") or "")
        if getattr(mod, "__file__", None):
            files.add(mod.__file__)
    reads = []
    for container, name, value in kernel._watched:
        if name is None or not isinstance(container, dict) or "__name__" not in container:
            raise _Uncacheable("a closure value")
        reads.append((container["__name__"], name, _fp(value)))
    return {"files": {f: _file_hash(f) for f in sorted(files)}, "reads": reads}


def _check(manifest: dict) -> list | None:
    """The watched (container, name, value) entries of a manifest that still holds in
    this process, else None."""
    for f, h in manifest["files"].items():
        if _file_hash(f) != h:
            return None
    watched = []
    for module, name, fp in manifest["reads"]:
        mod = sys.modules.get(module)
        if mod is None or name not in vars(mod):
            return None
        value = vars(mod)[name]
        try:
            if _fp(value) != fp:
                return None
        except _Uncacheable:
            return None
        watched.append((vars(mod), name, value))
    return watched


def load(kernel: Any, target: str, spec: Any, validate: Any) -> Any:
    """The cached ``Compiled`` of this specialisation, or None. On a hit the kernel
    watches the module-level names the entry depends on, as after a translation."""
    try:
        key = _key(kernel, target, spec, validate)
    except (_Uncacheable, KeyError):
        stats["uncacheable"] += 1
        return None
    path = _path(key)
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError:
        stats["misses"] += 1
        return None
    head = len(MAGIC) + 32
    body = raw[head:]
    if raw[:len(MAGIC)] != MAGIC or _digest(body) != raw[len(MAGIC):head]:
        stats["corrupt"] += 1
        _remove(path)
        return None
    try:
        entry = pickle.loads(body)
        binary = marshal.loads(entry["binary"]) if entry["marshal"] else entry["binary"]
        compiled = replace(entry["compiled"], binary=binary,
                           key=(id(kernel), kernel.generation, spec, target))
    except Exception:  # noqa: BLE001 - a valid checksum over an unreadable entry
        stats["corrupt"] += 1
        _remove(path)
        return None
    watched = _check(entry["manifest"])
    if watched is None:
        stats["misses"] += 1
        return None
    from .kernel import snapshot
    for container, name, value in watched:
        kernel._watch[(id(container), name)] = (container, name, snapshot(value))
    kernel._watched = tuple(kernel._watch.values())
    stats["hits"] += 1
    return compiled


def store(kernel: Any, compiled: Any, prog: Any, spec: Any, validate: Any) -> None:
    """Write ``compiled`` for later processes (nothing when the cache is off or the
    kernel depends on something without a stable description)."""
    try:
        key = _key(kernel, compiled.target, spec, validate)
        manifest = _manifest(kernel, prog)
    except (_Uncacheable, KeyError):
        stats["uncacheable"] += 1
        return
    path = _path(key)
    if path is None:
        return
    is_code = isinstance(compiled.binary, types.CodeType)
    try:
        body = pickle.dumps({
            "manifest": manifest, "marshal": is_code,
            "binary": marshal.dumps(compiled.binary) if is_code else compiled.binary,
            "compiled": replace(compiled, binary=None, key=())},
            protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - an unpicklable part: not cached
        stats["uncacheable"] += 1
        return
    data = MAGIC + _digest(body) + body
    import tempfile
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)       # atomic: readers see the old entry or the new one
        stats["stores"] += 1
    except OSError:
        try:
            os.unlink(tmp)
        except (OSError, UnboundLocalError):
            pass


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
