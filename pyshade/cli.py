"""Command line: ``pyshade translate | check | devices | demo | bench``."""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import sys
import time
from typing import Any

import numpy as np

import pyshade as ps
from pyshade import targets as registry


def _load_module(path: str) -> Any:
    if not os.path.isfile(path):
        raise SystemExit(f"pyshade: no such file: {path}")
    path = os.path.abspath(path)
    name = "pyshade_user_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"pyshade: cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    sys.path.insert(0, os.path.dirname(path))
    spec.loader.exec_module(mod)
    return mod


def _kernels(mod: Any, name: str | None) -> list[ps.Kernel]:
    if name:
        k = getattr(mod, name, None)
        if not isinstance(k, ps.Kernel):
            there = [n for n, v in vars(mod).items() if isinstance(v, ps.Kernel)]
            raise SystemExit(f"pyshade: {name!r} is not a @ps.kernel in {mod.__file__}; "
                             + (f"its kernels: {', '.join(there)}" if there else
                                "it defines none"))
        return [k]
    ks = [v for v in vars(mod).values() if isinstance(v, ps.Kernel)]
    if not ks:
        raise SystemExit(f"pyshade: no @ps.kernel in {mod.__file__}")
    return ks


def _split(target: str) -> tuple[str, str | None]:
    path, _, kernel = target.partition(":") if not os.path.exists(target) else (target, "", "")
    return path, kernel or None


def _bindings(defs: list[str], mod: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for d in defs or []:
        key, _, text = d.partition("=")
        if not text:
            raise SystemExit(f"pyshade: -D needs NAME=VALUE, got {d!r}")
        ns = dict(vars(ps))
        ns.update(vars(mod))
        try:
            out[key] = eval(text, ns)  # noqa: S307 - the user's own command line
        except Exception as e:  # noqa: BLE001
            raise SystemExit(f"pyshade: cannot evaluate -D {d}: {e}") from None
    return out


def _cli_hint(k: ps.Kernel, bindings: dict[str, Any]) -> str | None:
    """The command-line spelling of what a kernel still needs bound (``-D T=u32``), or
    None when every TypeVar and Const parameter without a default has a value."""
    missing = []
    for tv in k.typevars():
        if tv.__name__ not in bindings:
            opts = [getattr(o, "name", None) or getattr(o, "__name__", str(o))
                    for o in tv.__constraints__]
            missing.append(f"-D {tv.__name__}={opts[0] if opts else 'u32'}"
                           + (f" (allowed: {', '.join(opts)})" if opts else ""))
    for name, ann, default in k.params:
        if isinstance(ann, ps.types.ConstAnnotation) and name not in bindings \
                and default is inspect.Parameter.empty:
            missing.append(f"-D {name}=VALUE")
    if not missing:
        return None
    return (f"pyshade: kernel {k.__name__} needs compile-time values: "
            + "; ".join(missing))


def cmd_translate(args: argparse.Namespace) -> int:
    """``pyshade translate``: print the generated source of the kernel(s); returns the exit status."""
    path, kname = _split(args.file)
    mod = _load_module(path)
    targets = registry.TARGETS if args.target == "all" else (args.target,)
    for k in _kernels(mod, kname):
        bindings = _bindings(args.define, mod)
        hint = _cli_hint(k, bindings)
        if hint:
            print(hint, file=sys.stderr)
            return 2
        for t in targets:
            try:
                text = ps.translate(k, t, **bindings)
            except ps.BackendUnavailable as e:
                print(f"// {t}: {e}", file=sys.stderr)
                if len(targets) == 1:
                    return 2
                continue
            except ps.TranslationError as e:
                print(e, file=sys.stderr)
                return 1
            if len(targets) > 1:
                print(f"// ===== {k.__name__}: {t} =====")
            sys.stdout.write(text)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """``pyshade check``: compile the kernel(s) with every toolchain present and print the report;
    returns 1 if any failed."""
    path, kname = _split(args.file)
    mod = _load_module(path)
    bad = 0
    for k in _kernels(mod, kname):
        try:
            rep = ps.check(k, **_bindings(args.define, mod))
        except ps.TranslationError as e:
            print(e)
            bad += 1
            continue
        print(rep)
        # One error of the frontend fails every target the same way: print it once.
        by_text: dict[str, list[str]] = {}
        for t, e in rep.errors.items():
            by_text.setdefault(str(e), []).append(t)
        for text, ts in by_text.items():
            print(f"--- {k.__name__} [{', '.join(ts)}]\n{text}")
        bad += not rep.ok
    return 1 if bad else 0


def cmd_devices(args: argparse.Namespace) -> int:
    """``pyshade devices``: print each device, whether it is available, its adapter or reason,
    the languages it compiles kernels from where there is a choice, and any note about its
    driver."""
    print(f"{'device':8} {'available':10} adapter / reason")
    for d in ps.devices():
        print(f"{d.name:8} {'yes' if d.available else 'no':10} "
              f"{d.adapter if d.available else d.reason.splitlines()[0]}")
        if len(d.via) > 1:
            print(f"{'':19} via: {', '.join(d.via)} (ps.device({d.name!r}, via=...))")
        if d.note:
            print(f"{'':19} note: {d.note}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """``pyshade demo``: time ``pyshade.algorithms.sort`` on each device and dtype against
    ``numpy.sort``; returns 1 on a wrong result."""
    from pyshade.algorithms import sort
    # Every available device, and each other language route it has (vulkan via hlsl).
    routes = [(n, None) for n in args.device] if args.device else [
        (d.name, v) for d in ps.devices() if d.available
        for v in (None, *getattr(d, "via", ())[1:])]
    rng = np.random.default_rng()
    rows = []
    failed = False
    for name, via in routes:
        label = name if via is None else f"{name} via {via}"
        try:
            dev = ps.device(name) if via is None else ps.device(name, via=via)
        except ps.BackendUnavailable as e:
            rows.append((label, str(e).splitlines()[0], "-", "-", "-", "unavailable"))
            continue
        name = label
        # The cpu device interprets every invocation: --n (GPU sizes, 2^24 would take
        # minutes there) does not apply to it; --cpu-n does.
        n = args.cpu_n if name == "cpu" else (args.n or 1 << 16)
        try:
            sort(np.zeros(2, np.uint32), device=dev)
        except ps.BackendUnavailable as e:     # e.g. no emitter yet for the device's language
            rows.append((name, str(e).splitlines()[0], "-", "-", "-", "unavailable"))
            continue
        for dtype in (np.uint32, np.int32, np.float32):
            if dtype == np.float32:
                x = rng.standard_normal(n).astype(np.float32) * 1000
            else:
                info = np.iinfo(dtype)
                x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
            sort(x[:min(n, 1024)], device=dev)      # warm-up: compile + pipeline caches
            t0 = time.perf_counter()
            y = sort(x, device=dev)
            dt = time.perf_counter() - t0
            ok = np.array_equal(y, np.sort(x))
            failed |= not ok
            rows.append((name, dev.adapter, np.dtype(dtype).name, str(n), f"{dt * 1e3:.1f} ms",
                         "ok" if ok else "FAILED"))
    head = ("device", "adapter", "dtype", "n", "time", "result")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    print("pyshade.algorithms.sort (bitonic network below 16384 keys, radix sort from there) "
          "against numpy.sort:")
    for r in [head] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return 1 if failed else 0


def cmd_bench(args: argparse.Namespace) -> int:
    """``pyshade bench``: run every benchmark available here (or re-render ``--from`` a
    saved JSON); writes bench.json, bench.md and bench.png under ``--out`` and prints the
    markdown table last. Returns 1 when a benchmark failed."""
    from pyshade import benchmarks
    from pyshade.benchmarks import report
    if args.json_in:
        rep = report.load_json(args.json_in)
        out = args.out or os.path.dirname(os.path.abspath(args.json_in))
        os.makedirs(out, exist_ok=True)
    else:
        only = tuple(f for part in args.only or [] for f in part.split(",") if f) \
            or benchmarks.FAMILIES
        unknown = sorted(set(only) - set(benchmarks.FAMILIES))
        if unknown:
            raise SystemExit(f"pyshade bench: unknown benchmark {', '.join(unknown)}; "
                             f"choose from {','.join(benchmarks.FAMILIES)}")
        devices = args.device or [d.name for d in ps.devices() if d.available]
        settings = benchmarks.Settings(
            devices=devices, sizes=args.sizes or ([4096] if args.quick else [1 << 16, 1 << 20]),
            reps=args.reps or (2 if args.quick else 5), quick=args.quick,
            launches=200 if args.quick else 1000)
        out = args.out or "pyshade-bench"
        os.makedirs(out, exist_ok=True)
        command = " ".join(["pyshade", *(sys.argv[1:] if args.argv is None else args.argv)])
        path = os.path.join(out, "bench.json")
        rep = benchmarks.run(settings, only, command,
                             progress=lambda partial: report.save_json(partial, path))
        report.save_json(rep, path)
    text = report.markdown(rep)
    with open(os.path.join(out, "bench.md"), "w") as f:
        f.write(text)
    why = report.plot(rep, os.path.join(out, "bench.png"))
    print(f"pyshade bench: wrote {out}/" + ("bench.json, " if not args.json_in else "")
          + "bench.md" + ("" if why else ", bench.png"), file=sys.stderr)
    if why:
        print(f"pyshade bench: {why}", file=sys.stderr)
    print(text, end="")
    return 1 if rep.get("failed") else 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pyshade`` command."""
    p = argparse.ArgumentParser(prog="pyshade", description="Python GPU kernels everywhere.")
    p.add_argument("--version", action="version", version=f"pyshade {ps.__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("translate", help="print generated source")
    t.add_argument("file", help="FILE.py:KERNEL")
    t.add_argument("--target", default="wgsl",
                   choices=list(registry.TARGETS) + ["all"])
    t.add_argument("-D", dest="define", action="append", help="bind a TypeVar/Const: -D T=u32")
    t.set_defaults(fn=cmd_translate)
    c = sub.add_parser("check", help="compile every kernel with every toolchain present")
    c.add_argument("file", help="FILE.py[:KERNEL]")
    c.add_argument("-D", dest="define", action="append")
    c.set_defaults(fn=cmd_check)
    d = sub.add_parser("devices", help="list backends, adapters and availability")
    d.set_defaults(fn=cmd_devices)
    m = sub.add_parser("demo", help="bitonic sort on every available device vs numpy")
    m.add_argument("--n", type=int, default=0,
                   help="elements on GPU devices (default 65536; the cpu device uses --cpu-n)")
    m.add_argument("--cpu-n", type=int, default=4096,
                   help="elements on the cpu device, which interprets each invocation")
    m.add_argument("--device", action="append", help="device name (repeatable)")
    m.set_defaults(fn=cmd_demo)
    b = sub.add_parser("bench", help="every benchmark available here: JSON, a table, a plot")
    b.add_argument("--device", nargs="+", help="device names (default: every available one)")
    b.add_argument("--only", action="append",
                   help="comma-separated: launch,kernels,algorithms,translate,coldstart")
    b.add_argument("--sizes", type=int, nargs="+",
                   help="keys per sort/algorithm (default 65536 1048576; --quick 4096)")
    b.add_argument("--reps", type=int, default=0, help="repetitions (default 5; --quick 2)")
    b.add_argument("--quick", action="store_true", help="small sizes, few repetitions")
    b.add_argument("--out", default="", help="folder for bench.json/.md/.png")
    b.add_argument("--from", dest="json_in", default="",
                   help="re-render the table and plot of a saved bench.json")
    b.set_defaults(fn=cmd_bench, argv=argv)
    args = p.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
