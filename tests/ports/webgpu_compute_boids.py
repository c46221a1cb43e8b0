"""Port of webgpu/webgpu-samples:sample/computeBoids/updateSprites.wgsl (main)

The WebGPU sample's flocking step: each boid looks at every other one, gathers the
centre of mass and mean velocity of those within two radii and pushes away from those
within a third, then clamps its speed, moves and wraps around the [-1, 1] square.

Spelling: the WGSL ``struct Particle`` is a ``@ps.struct`` and the runtime-sized
``array<Particle>`` a ``ps.Buffer[Particle]``; the uniform ``SimParams`` is a struct
parameter; ``GlobalInvocationID.x`` is ``ps.global_id().x``, ``arrayLength(&...)`` is
``len(...)``, ``var pos : vec2f;`` is the annotation ``pos: vec2``, ``0u`` counters
are ``u32(0)``, ``distance``, ``normalize``, ``clamp`` and ``length`` are their ``ps.``
namesakes, and the C-style ``for`` loop is a ``range`` loop with the same
``continue``. Like the
sample, the kernel has no bounds check: WGSL clamps the sample's out-of-range
invocations (1500 boids in groups of 64) into the buffer, which pyshade leaves
undefined on a GPU and the cpu device reports as an IndexError, so the boid count
here is a multiple of 64.
"""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import f32, u32, vec2


@ps.struct
class Particle:
    pos: vec2
    vel: vec2


@ps.struct
class SimParams:
    deltaT: f32
    rule1Distance: f32
    rule2Distance: f32
    rule3Distance: f32
    rule1Scale: f32
    rule2Scale: f32
    rule3Scale: f32


# from https://github.com/austinEng/Project6-Vulkan-Flocking (computeparticles/particle.comp)
@ps.kernel(workgroup_size=64)
def main(params: SimParams, particlesA: ps.Buffer[Particle], particlesB: ps.Buffer[Particle]) -> None:
    index = ps.global_id().x

    vPos = particlesA[index].pos
    vVel = particlesA[index].vel
    cMass = vec2(0.0)
    cVel = vec2(0.0)
    colVel = vec2(0.0)
    cMassCount = u32(0)
    cVelCount = u32(0)
    pos: vec2
    vel: vec2

    for i in range(len(particlesA)):
        if i == index:
            continue

        pos = particlesA[i].pos.xy
        vel = particlesA[i].vel.xy
        if ps.distance(pos, vPos) < params.rule1Distance:
            cMass += pos
            cMassCount += 1
        if ps.distance(pos, vPos) < params.rule2Distance:
            colVel -= pos - vPos
        if ps.distance(pos, vPos) < params.rule3Distance:
            cVel += vel
            cVelCount += 1
    if cMassCount > 0:
        cMass = (cMass / vec2(f32(cMassCount))) - vPos
    if cVelCount > 0:
        cVel /= f32(cVelCount)
    vVel += (cMass * params.rule1Scale) + (colVel * params.rule2Scale) + (cVel * params.rule3Scale)

    # clamp velocity for a more pleasing simulation
    vVel = ps.normalize(vVel) * ps.clamp(ps.length(vVel), 0.0, 0.1)
    # kinematic update
    vPos = vPos + (vVel * params.deltaT)
    # Wrap around boundary
    if vPos.x < -1.0:
        vPos.x = 1.0
    if vPos.x > 1.0:
        vPos.x = -1.0
    if vPos.y < -1.0:
        vPos.y = 1.0
    if vPos.y > 1.0:
        vPos.y = -1.0
    # Write back
    particlesB[index].pos = vPos
    particlesB[index].vel = vVel


# The sample's defaults (main.ts: simParams).
PARAMS = {"deltaT": 0.04, "rule1Distance": 0.1, "rule2Distance": 0.025, "rule3Distance": 0.025,
          "rule1Scale": 0.02, "rule2Scale": 0.05, "rule3Scale": 0.005}
# Pairs this close to a radius are avoided in the inputs: one rounding of the distance
# could put them on the other side, and that boid's result would differ by a whole term.
MARGIN = 1e-6      # some 100 f32 ulps of the radii


def _distances(p: np.ndarray) -> np.ndarray:
    d = p[:, None, :].astype(np.float64) - p[None, :, :]
    return np.sqrt((d * d).sum(axis=-1))


def inputs(rng: np.random.Generator) -> dict:
    """Random boids as the sample makes them (positions and velocities in [-1, 1) and
    [-0.1, 0.1)), 128 of them (a multiple of 64), none near a radius; half of them packed in
    a small square so that the three rules come into play, and four at the edges
    heading out, so that each wrap-around is taken."""
    n = 128
    radii = [PARAMS["rule1Distance"], PARAMS["rule2Distance"]]
    while True:
        ps_ = np.zeros(n, Particle.dtype)
        pos = rng.uniform(-1.0, 1.0, (n, 2))
        pos[: n // 2] = rng.uniform(-0.15, 0.15, (n // 2, 2))
        ps_["pos"] = pos
        ps_["vel"] = rng.uniform(-0.1, 0.1, (n, 2))
        ps_["pos"][-4:] = [(0.999, 0.5), (-0.999, -0.5), (0.5, 0.999), (-0.5, -0.999)]
        ps_["vel"][-4:] = [(0.09, 0.0), (-0.09, 0.0), (0.0, 0.09), (0.0, -0.09)]
        dist = _distances(ps_["pos"])
        if all(np.abs(dist - np.float32(r)).min() > MARGIN for r in radii):
            return {"particles": ps_}


def run(dev: ps.Device, particles: np.ndarray) -> dict:
    a = dev.array(particles)
    b = dev.zeros(len(particles), Particle.dtype)
    main.launch(SimParams(**PARAMS), a, b, threads=len(particles), device=dev)
    return {"pos": b.numpy()["pos"], "vel": b.numpy()["vel"]}


def reference(particles: np.ndarray) -> dict:
    """The same step in float64 numpy, all boids at once."""
    p = {k: np.float64(np.float32(v)) for k, v in PARAMS.items()}
    pos = particles["pos"].astype(np.float64)
    vel = particles["vel"].astype(np.float64)
    dist = _distances(particles["pos"])
    np.fill_diagonal(dist, np.inf)
    near1, near2, near3 = (dist < p[f"rule{k}Distance"] for k in (1, 2, 3))
    n1, n3 = near1.sum(axis=1), near3.sum(axis=1)
    cMass = np.where(n1[:, None] > 0, (near1 @ pos) / np.maximum(n1, 1)[:, None] - pos, 0.0)
    colVel = -(near2 @ pos - near2.sum(axis=1)[:, None] * pos)
    cVel = np.where(n3[:, None] > 0, (near3 @ vel) / np.maximum(n3, 1)[:, None], 0.0)
    v = vel + cMass * p["rule1Scale"] + colVel * p["rule2Scale"] + cVel * p["rule3Scale"]
    speed = np.sqrt((v * v).sum(axis=1))
    v = v / speed[:, None] * np.clip(speed, 0.0, 0.1)[:, None]
    x = pos + v * p["deltaT"]
    x = np.where(x < -1.0, 1.0, np.where(x > 1.0, -1.0, x))
    return {"pos": x, "vel": v}
