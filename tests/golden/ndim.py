"""Multi-dimensional data (issue 18, item 5): ``Buffer[T, 2]`` and ``Buffer[T, 3]``
indexed ``a[i, j]`` with ``a.shape[k]`` and ``len(a)``, a tiled matrix product with a
2-D shared tile padded against bank conflicts (``(TILE, TILE + 1)``, as numba's and the
CUDA samples' write it), a 3-D stencil, and 2-D local arrays."""

import pyshade as ps
from pyshade import f32, i32, u32

TILE = 16


@ps.kernel(workgroup_size=(TILE, TILE, 1))
def matmul_tiled(a: ps.Buffer[f32, 2], b: ps.Buffer[f32, 2], c: ps.Buffer[f32, 2]) -> None:
    """c = a @ b, one TILE x TILE block of c per workgroup."""
    sa = ps.shared_array(f32, (TILE, TILE))
    sb = ps.shared_array(f32, (TILE, TILE + 1))     # transposed, padded
    tx = ps.local_id().x
    ty = ps.local_id().y
    row = ps.group_id().y * TILE + ty
    col = ps.group_id().x * TILE + tx
    n = a.shape[1]
    acc: f32 = 0.0
    for t in range((n + TILE - 1) // TILE):
        k = t * TILE
        sa[ty, tx] = a[row, k + tx] if row < len(a) and k + tx < n else 0.0
        sb[tx, ty] = b[k + ty, col] if k + ty < n and col < b.shape[1] else 0.0
        ps.barrier()
        for j in range(TILE):
            acc += sa[ty, j] * sb[tx, j]
        ps.barrier()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


@ps.kernel(workgroup_size=(4, 4, 4))
def laplace3d(u: ps.Buffer[f32, 3], out: ps.Buffer[f32, 3]) -> None:
    """The 7-point Laplacian of the interior of a 3-D grid (signed ids, as ports write)."""
    g = ps.global_id()
    i, j, k = i32(g.z), i32(g.y), i32(g.x)
    nz, ny, nx = i32(u.shape[0]), i32(u.shape[1]), i32(u.shape[2])
    if 0 < i < nz - 1 and 0 < j < ny - 1 and 0 < k < nx - 1:
        out[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                        + u[i, j, k - 1] + u[i, j, k + 1] - 6.0 * u[i, j, k])


@ps.kernel(workgroup_size=64)
def blur3x3(img: ps.Buffer[u32, 2], out: ps.Buffer[f32, 2]) -> None:
    """A 3x3 box filter with its weights in a 2-D local array; each pixel of a row."""
    x = ps.global_id().x
    y = ps.global_id().y
    w = ps.array(f32, (3, 3))
    for dy in range(3):
        for dx in range(3):
            w[dy, dx] = 1.0 / 9.0
    h, wd = img.shape[0], img.shape[1]
    if y >= h or x >= wd:
        return
    acc: f32 = 0.0
    for dy in range(3):
        for dx in range(3):
            yy = min(max(i32(y) + dy - 1, 0), i32(h) - 1)
            xx = min(max(i32(x) + dx - 1, 0), i32(wd) - 1)
            acc += w[dy, dx] * f32(img[yy, xx])
    out[y, x] = acc


def at_clamped(img: ps.Buffer[u32, 2], y: i32, x: i32) -> u32:
    """A helper that takes a 2-D buffer: the pixel nearest (y, x) inside the image."""
    yy = min(max(y, 0), i32(img.shape[0]) - 1)
    xx = min(max(x, 0), i32(img.shape[1]) - 1)
    return img[yy, xx]


def tile_sum(tile, row: u32) -> f32:  # noqa: ANN001 - the shared tile by name
    """A helper that reads a row of a 2-D shared tile passed by name."""
    s: f32 = 0.0
    for j in range(4):
        s += tile[row, j]
    return s


@ps.kernel(workgroup_size=(4, 8, 1))
def transpose_sum(img: ps.Buffer[u32, 2], out: ps.Buffer[f32, 2]) -> None:
    """out[x, y] = img[y, x] (edge-clamped) plus the sum of a row of a shared tile."""
    tile = ps.shared_array(f32, (8, 4))
    lx = ps.local_id().x
    ly = ps.local_id().y
    x = ps.global_id().x
    y = ps.global_id().y
    tile[ly, lx] = f32(at_clamped(img, i32(y), i32(x)))
    ps.barrier()
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = tile[ly, lx] + tile_sum(tile, ly)
