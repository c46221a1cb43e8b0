"""A kernel's signature without the rest of the frontend: what the launch path needs
before (or, with the persistent cache, instead of) a translation."""

from __future__ import annotations

import inspect
from typing import Any


def annotations_of(fn: Any) -> dict[str, Any]:
    """``fn``'s annotations as objects (strings, as under ``from __future__ import
    annotations``, evaluated in its module)."""
    ann = dict(getattr(fn, "__annotations__", {}))
    for k, v in ann.items():
        if isinstance(v, str):
            ns = dict(fn.__globals__)
            ann[k] = eval(v, ns)  # noqa: S307 - the user's own annotation text
    return ann


def kernel_params(fn: Any) -> list[tuple[str, Any, Any]]:
    """(name, annotation object, default or inspect.Parameter.empty) of a kernel."""
    sig = inspect.signature(fn)
    ann = annotations_of(fn)
    return [(n, ann.get(n), p.default) for n, p in sig.parameters.items()]
