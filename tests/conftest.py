"""Shared fixtures: devices (skip locally, fail in CI), golden-file updating."""

from __future__ import annotations

import os

import numpy as np
import pytest

import pyshade as ps

IN_CI = os.environ.get("CI", "").lower() == "true"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/<target>/* from the current emitters")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "gpu: needs a real GPU (run on the lent H200, not in CI)")
    config.addinivalue_line("markers", "slow: long-running test")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def require(condition: bool, reason: str) -> None:
    """Skip locally when something is missing; in CI (CI=true) that is a failure."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


def get_device(name: str) -> ps.Device:
    """The named device, or skip/fail with the reason it is unavailable."""
    try:
        return ps.device(name)
    except ps.BackendUnavailable as e:
        require(False, f"device {name!r} unavailable: {e}")
        raise


@pytest.fixture(params=["cpu", "wgpu"])
def dev(request: pytest.FixtureRequest) -> ps.Device:
    """Each execution test runs on the CPU interpreter and on wgpu."""
    d = get_device(request.param)
    if request.param == "wgpu" and IN_CI:
        # CI must run on lavapipe through Vulkan, not a silent GL fallback.
        assert "Vulkan" in d.adapter, d.adapter
    return d


@pytest.fixture
def rng() -> np.random.Generator:
    """Fresh random data every run (seed printed on failure via the repr)."""
    return np.random.default_rng()
