"""Port of NVIDIA/cuda-samples:Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu (convolutionRowsKernel, convolutionColumnsKernel)

The CUDA sample's separable convolution with a radius-8 kernel in ``__constant__``
memory: each block stages its rows (columns) of the image in a shared tile with a halo
on both sides, zero past the image's edge, waits at a barrier, and computes
``ROWS_RESULT_STEPS`` (``COLUMNS_RESULT_STEPS``) outputs per thread from the tile. The
column tile is padded by one element against bank conflicts.

Spelling: ``__constant__ float c_Kernel[KERNEL_LENGTH]``, which the sample fills from
the host with ``cudaMemcpyToSymbol``, is a module-level constant table (values 0..15,
as the sample draws them with ``rand() % 16``); the 2-D ``__shared__`` tiles are
``ps.shared_array(f32, (rows, cols))`` indexed ``s_Data[y, x]``; ``cg::sync(cta)`` is
``ps.barrier()``; ``blockIdx`` and ``threadIdx`` are ``ps.group_id()`` and
``ps.local_id()`` as ``i32`` (the sample's index arithmetic is signed); the pointer
offsets ``d_Src += baseY * pitch + baseX`` are an integer ``offset`` added to each
index; ``#pragma unroll`` loops are ``ps.unroll(range(...))``; ``cond ? d_Src[k] : 0``
is ``d_Src[k] if cond else 0.0``, which reads the element only when ``cond`` holds.
"""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import f32, i32

KERNEL_RADIUS = 8
KERNEL_LENGTH = 2 * KERNEL_RADIUS + 1
c_Kernel = (3.0, 7.0, 1.0, 12.0, 5.0, 0.0, 9.0, 14.0, 2.0, 11.0, 6.0, 15.0, 4.0, 8.0, 13.0, 10.0, 1.0)

# Row convolution filter
ROWS_BLOCKDIM_X = 16
ROWS_BLOCKDIM_Y = 4
ROWS_RESULT_STEPS = 8
ROWS_HALO_STEPS = 1


@ps.kernel(workgroup_size=(ROWS_BLOCKDIM_X, ROWS_BLOCKDIM_Y, 1))
def convolutionRowsKernel(d_Dst: ps.Buffer[f32], d_Src: ps.Buffer[f32], imageW: i32, imageH: i32,
                          pitch: i32) -> None:
    s_Data = ps.shared_array(f32, (ROWS_BLOCKDIM_Y,
                                   (ROWS_RESULT_STEPS + 2 * ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X))
    tx = i32(ps.local_id().x)
    ty = i32(ps.local_id().y)

    # Offset to the left halo edge
    baseX = (i32(ps.group_id().x) * ROWS_RESULT_STEPS - ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X + tx
    baseY = i32(ps.group_id().y) * ROWS_BLOCKDIM_Y + ty

    offset = baseY * pitch + baseX

    # Load main data
    for i in ps.unroll(range(ROWS_HALO_STEPS, ROWS_HALO_STEPS + ROWS_RESULT_STEPS)):
        s_Data[ty, tx + i * ROWS_BLOCKDIM_X] = d_Src[offset + i * ROWS_BLOCKDIM_X]

    # Load left halo
    for i in ps.unroll(range(ROWS_HALO_STEPS)):
        s_Data[ty, tx + i * ROWS_BLOCKDIM_X] = (
            d_Src[offset + i * ROWS_BLOCKDIM_X] if baseX >= -i * ROWS_BLOCKDIM_X else 0.0)

    # Load right halo
    for i in ps.unroll(range(ROWS_HALO_STEPS + ROWS_RESULT_STEPS,
                             ROWS_HALO_STEPS + ROWS_RESULT_STEPS + ROWS_HALO_STEPS)):
        s_Data[ty, tx + i * ROWS_BLOCKDIM_X] = (
            d_Src[offset + i * ROWS_BLOCKDIM_X] if imageW - baseX > i * ROWS_BLOCKDIM_X else 0.0)

    # Compute and store results
    ps.barrier()
    for i in ps.unroll(range(ROWS_HALO_STEPS, ROWS_HALO_STEPS + ROWS_RESULT_STEPS)):
        sum = f32(0)

        for j in ps.unroll(range(-KERNEL_RADIUS, KERNEL_RADIUS + 1)):
            sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[ty, tx + i * ROWS_BLOCKDIM_X + j]

        d_Dst[offset + i * ROWS_BLOCKDIM_X] = sum


# Column convolution filter
COLUMNS_BLOCKDIM_X = 16
COLUMNS_BLOCKDIM_Y = 8
COLUMNS_RESULT_STEPS = 8
COLUMNS_HALO_STEPS = 1


@ps.kernel(workgroup_size=(COLUMNS_BLOCKDIM_X, COLUMNS_BLOCKDIM_Y, 1))
def convolutionColumnsKernel(d_Dst: ps.Buffer[f32], d_Src: ps.Buffer[f32], imageW: i32,
                             imageH: i32, pitch: i32) -> None:
    s_Data = ps.shared_array(f32, (COLUMNS_BLOCKDIM_X,
                                   (COLUMNS_RESULT_STEPS + 2 * COLUMNS_HALO_STEPS) * COLUMNS_BLOCKDIM_Y + 1))
    tx = i32(ps.local_id().x)
    ty = i32(ps.local_id().y)

    # Offset to the upper halo edge
    baseX = i32(ps.group_id().x) * COLUMNS_BLOCKDIM_X + tx
    baseY = (i32(ps.group_id().y) * COLUMNS_RESULT_STEPS - COLUMNS_HALO_STEPS) * COLUMNS_BLOCKDIM_Y + ty
    offset = baseY * pitch + baseX

    # Main data
    for i in ps.unroll(range(COLUMNS_HALO_STEPS, COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS)):
        s_Data[tx, ty + i * COLUMNS_BLOCKDIM_Y] = d_Src[offset + i * COLUMNS_BLOCKDIM_Y * pitch]

    # Upper halo
    for i in ps.unroll(range(COLUMNS_HALO_STEPS)):
        s_Data[tx, ty + i * COLUMNS_BLOCKDIM_Y] = (
            d_Src[offset + i * COLUMNS_BLOCKDIM_Y * pitch] if baseY >= -i * COLUMNS_BLOCKDIM_Y
            else 0.0)

    # Lower halo
    for i in ps.unroll(range(COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS,
                             COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS + COLUMNS_HALO_STEPS)):
        s_Data[tx, ty + i * COLUMNS_BLOCKDIM_Y] = (
            d_Src[offset + i * COLUMNS_BLOCKDIM_Y * pitch] if imageH - baseY > i * COLUMNS_BLOCKDIM_Y
            else 0.0)

    # Compute and store results
    ps.barrier()
    for i in ps.unroll(range(COLUMNS_HALO_STEPS, COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS)):
        sum = f32(0)
        for j in ps.unroll(range(-KERNEL_RADIUS, KERNEL_RADIUS + 1)):
            sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[tx, ty + i * COLUMNS_BLOCKDIM_Y + j]

        d_Dst[offset + i * COLUMNS_BLOCKDIM_Y * pitch] = sum


def inputs(rng: np.random.Generator) -> dict:
    """An image of whole tiles for both kernels (the sample asserts it: width a multiple
    of 128, height of 64), of integers 0..15 as the sample makes it, so that every sum
    is an integer below 2**24 and exact in f32 in any order."""
    imageW, imageH = ROWS_RESULT_STEPS * ROWS_BLOCKDIM_X, COLUMNS_RESULT_STEPS * COLUMNS_BLOCKDIM_Y
    return {"image": rng.integers(0, 16, (imageH, imageW)).astype(np.float32)}


def run(dev: ps.Device, image: np.ndarray) -> dict:
    imageH, imageW = image.shape
    d_Input = dev.array(image.reshape(-1))
    d_Buffer, d_Output = dev.zeros(imageH * imageW, np.float32), dev.zeros(imageH * imageW, np.float32)
    w, h = i32(imageW), i32(imageH)
    convolutionRowsKernel.launch(d_Buffer, d_Input, w, h, w, device=dev, groups=(
        imageW // (ROWS_RESULT_STEPS * ROWS_BLOCKDIM_X), imageH // ROWS_BLOCKDIM_Y, 1))
    convolutionColumnsKernel.launch(d_Output, d_Buffer, w, h, w, device=dev, groups=(
        imageW // COLUMNS_BLOCKDIM_X, imageH // (COLUMNS_RESULT_STEPS * COLUMNS_BLOCKDIM_Y), 1))
    return {"rows": d_Buffer.numpy().reshape(imageH, imageW),
            "output": d_Output.numpy().reshape(imageH, imageW)}


def reference(image: np.ndarray) -> dict:
    """convolutionSeparable_gold.cpp's convolutionRowCPU and convolutionColumnCPU: a
    correlation with the reversed kernel, zero outside the image."""
    k = np.array(c_Kernel, np.float64)
    img = image.astype(np.float64)
    h, w = img.shape
    r = KERNEL_RADIUS
    padded = np.pad(img, ((0, 0), (r, r)))
    rows = sum(k[r - j] * padded[:, r + j: r + j + w] for j in range(-r, r + 1))
    padded = np.pad(rows, ((r, r), (0, 0)))
    cols = sum(k[r - j] * padded[r + j: r + j + h, :] for j in range(-r, r + 1))
    return {"rows": rows, "output": cols}
