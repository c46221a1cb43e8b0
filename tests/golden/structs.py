"""Structs: construction by keyword and position (an omitted field takes the
class body's default, or zero), field reads and writes,
nested structs, vector/bool/enum/array fields, methods (@ps.func and plain),
struct buffers and struct parameters."""

from enum import IntEnum
from typing import Literal

import pyshade as ps
from pyshade import f32, u32, vec2


class Kind(IntEnum):
    DUST = 0
    ROCK = 1


@ps.struct
class Body:
    pos: vec2
    vel: vec2
    mass: f32
    alive: bool
    kind: Kind

    @ps.func
    def momentum(self) -> vec2:
        return self.vel * self.mass

    def kinetic(self) -> f32:             # a plain method works too
        return 0.5 * self.mass * ps.dot(self.vel, self.vel)

    @staticmethod
    def at_rest(p: vec2, m: f32) -> "Body":
        return Body(p, vec2(0.0, 0.0), m, True, Kind.DUST)


@ps.struct
class World:
    gravity: vec2
    dt: f32
    bounds: ps.Array[f32, Literal[4]]     # xmin, ymin, xmax, ymax


@ps.struct
class Stats:
    count: u32
    center: vec2
    energy: f32 = 0.5                     # what a constructor leaving it out stores


@ps.kernel(workgroup_size=64)
def step_bodies(bodies: ps.Buffer[Body], world: World, energy: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i >= len(bodies):
        return
    b = bodies[i]
    if not b.alive:
        return
    b.vel += world.gravity * world.dt
    b.pos = b.pos + b.vel * world.dt
    if b.pos.x < world.bounds[0] or b.pos.x > world.bounds[2]:
        b.vel.x = -b.vel.x
    if b.pos.y < world.bounds[1]:
        b.alive = False
        b.kind = Kind.ROCK
    bodies[i] = b
    bodies[i].mass *= 0.999
    energy[i] = b.kinetic() + ps.length(b.momentum())


@ps.kernel(workgroup_size=64)
def summarize(bodies: ps.Buffer[Body], stats: ps.Buffer[Stats]) -> None:
    if ps.global_id().x != 0:
        return
    s = Stats(count=0, energy=0.0, center=vec2(0.0))
    for k in range(len(bodies)):
        b = bodies[k]
        if b.alive and b.kind == Kind.DUST:
            s.count += 1
            s.energy += b.kinetic()
            s.center += b.pos
    if s.count > 0:
        s.center /= f32(s.count)
    stats[0] = s
    stats[1] = Stats(u32(len(bodies)), center=s.center)
    rest = Body.at_rest(s.center, 1.0)
    stats[2].center = rest.pos
