"""Library kernels written in pyshade."""

from .sort import sort

__all__ = ["sort"]
