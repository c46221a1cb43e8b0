"""The Mandelbrot set: a 2-D kernel with vec2 maths, ``while`` + ``break`` and a
``Const[int]`` iteration limit, written to a PNG.

    python examples/mandelbrot.py [--device NAME] [--n WIDTH] [--height H]
                                  [--max-iter 256] [--out mandelbrot.png]

Each invocation (8x8 workgroups, launched with ``groups=``) iterates
z = z^2 + c for one pixel and stores the escape count. The result is checked
against numpy running the same float32 recurrence step by step: on the cpu
device the counts match exactly; a GPU compiler may fuse a multiply-add
(one rounding instead of two), which changes the count of a few pixels on
the boundary of the set, so a small fraction of differing pixels is allowed
there and reported. The PNG is written with the standard library only.
"""

from __future__ import annotations

import argparse
import struct
import sys
import time
import zlib

import numpy as np

import pyshade as ps
from pyshade import f32, u32, vec2

# The view: the whole set, x in [-2.5, 1.0], y in [-1.25, 1.25].
X0, X1, Y0, Y1 = -2.5, 1.0, -1.25, 1.25


@ps.kernel(workgroup_size=(8, 8))
def mandelbrot(counts: ps.Buffer[u32], width: u32, height: u32, origin: vec2, scale: f32,
               max_iter: ps.Const[int] = 256) -> None:
    gid = ps.global_id()
    if gid.x >= width or gid.y >= height:
        return
    c = (vec2(f32(gid.x), f32(gid.y)) + 0.5) * scale + origin
    z = vec2(0.0, 0.0)
    n: u32 = 0
    while n < max_iter:
        if ps.dot(z, z) > 4.0:
            break
        z = vec2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c
        n += 1
    counts[gid.y * width + gid.x] = n


def mandelbrot_numpy(width: int, height: int, origin: tuple[float, float], scale: float,
                     max_iter: int) -> np.ndarray:
    """The same float32 recurrence, every operation rounded to float32 as in the kernel."""
    f = np.float32
    s, ox, oy = f(scale), f(origin[0]), f(origin[1])
    ys, xs = np.mgrid[0:height, 0:width].astype(f)
    cx = (xs + f(0.5)) * s + ox
    cy = (ys + f(0.5)) * s + oy
    zx = np.zeros_like(cx)
    zy = np.zeros_like(cy)
    n = np.zeros(cx.shape, np.uint32)
    active = np.ones(cx.shape, bool)
    for _ in range(max_iter):
        active &= ~(zx * zx + zy * zy > f(4.0))
        if not active.any():
            break
        nzx = (zx * zx - zy * zy) + cx
        nzy = (f(2.0) * zx) * zy + cy
        zx = np.where(active, nzx, zx)
        zy = np.where(active, nzy, zy)
        n += active
    return n.reshape(-1)


# ---------------------------------------------------------------------------- PNG


def png_bytes(rgb: np.ndarray) -> bytes:
    """A minimal PNG (8-bit RGB, or grayscale for a 2-D array), standard library only."""
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    height, width = rgb.shape[:2]
    colour_type = 2 if rgb.ndim == 3 else 0

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    rows = rgb.reshape(height, -1)
    raw = np.zeros((height, rows.shape[1] + 1), np.uint8)   # filter byte 0 (None) per row
    raw[:, 1:] = rows
    ihdr = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)) + chunk(b"IEND", b""))


def colourise(counts: np.ndarray, max_iter: int) -> np.ndarray:
    """Escape counts -> RGB with a small smooth palette; the set itself is black."""
    t = np.sqrt(np.arange(max_iter + 1) / max(max_iter, 1))
    palette = np.stack([9 * (1 - t) * t**3, 15 * (1 - t)**2 * t**2, 8.5 * (1 - t)**3 * t], -1)
    palette = (np.clip(palette, 0, 1) * 255).astype(np.uint8)
    palette[max_iter] = 0
    return np.asarray(palette[counts])


# ---------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--device", default=None, help="device name (default: the best available)")
    ap.add_argument("--n", type=int, default=None,
                    help="image width in pixels (default: 1400; 140 on the cpu device)")
    ap.add_argument("--height", type=int, default=None,
                    help="image height (default: width * 5/7, the view's aspect ratio)")
    ap.add_argument("--max-iter", type=int, default=None,
                    help="iteration limit, a Const[int] (default: 256; 64 on the cpu device)")
    ap.add_argument("--out", default="mandelbrot.png", help="PNG file to write ('' for none)")
    ap.add_argument("--tolerance", type=float, default=1e-2,
                    help="fraction of pixels allowed to differ on a GPU (default: 0.01)")
    args = ap.parse_args(argv)

    dev = ps.device(args.device)
    cpu = dev.name == "cpu"
    width = args.n if args.n is not None else (140 if cpu else 1400)
    height = args.height if args.height is not None else max(1, round(width * 5 / 7))
    max_iter = args.max_iter if args.max_iter is not None else (64 if cpu else 256)
    scale = (X1 - X0) / width
    origin = vec2(X0, (Y0 + Y1) / 2 - height * scale / 2)   # a float32 numpy array

    counts = dev.zeros(width * height, np.uint32)
    groups = ((width + 7) // 8, (height + 7) // 8)
    times = []
    for _ in range(2):               # the first launch also translates and compiles
        t0 = time.perf_counter()
        mandelbrot.launch(counts, width, height, origin, f32(scale), max_iter,
                          groups=groups, device=dev)
        dev.synchronize()
        times.append(time.perf_counter() - t0)
    got = counts.numpy()

    want = mandelbrot_numpy(width, height, (origin[0], origin[1]), scale, max_iter)
    bad = int(np.count_nonzero(got != want))
    allowed = 0 if cpu else int(args.tolerance * got.size)
    ok = bad <= allowed
    if args.out:
        with open(args.out, "wb") as fh:
            fh.write(png_bytes(colourise(got.reshape(height, width), max_iter)))

    print(f"mandelbrot  device={dev.name}  adapter={dev.adapter}")
    print(f"size={width}x{height}  max_iter={max_iter}  time={times[1] * 1e3:.2f} ms "
          f"(first launch, with compilation: {times[0] * 1e3:.2f} ms)")
    print(f"{bad} of {got.size} pixels differ from numpy (allowed: {allowed})"
          + (f"; wrote {args.out}" if args.out else ""))
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
