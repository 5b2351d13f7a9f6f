"""Shared pytest configuration for the gpu_rs test suite.

* registers the ``slow`` marker (deselect with ``-m "not slow"``);
* makes ``tests/`` importable so test modules can ``import oracles``;
* provides the ``backend`` fixture used by every engine test: ``"numpy"`` always,
  ``"array_api_strict"`` when the ``array-api-strict`` package is importable, and
  ``"cupy"`` where CuPy imports and sees a CUDA device (each skipped with its reason
  otherwise), so that on a GPU machine ``pytest`` runs every engine test on the GPU;
* ``gpu_rs`` fixture: imports the engine.  A missing or broken engine makes the engine
  tests *error* (not skip); the oracle tests in ``test_oracles.py`` never need it.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

BACKENDS = ("numpy", "array_api_strict", "cupy")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes more than a few seconds (deselect with -m 'not slow')")
    # Every error budget must add up to its interval's width: fail loudly if a
    # combination rule misattributes more than rounding.
    import gpu_rs.engine.bounds

    gpu_rs.engine.bounds.STRICT = True
    _refuse_implicit_host_copies()


def _refuse_implicit_host_copies():
    """Make ``array-api-strict`` arrays refuse ``np.asarray`` as CuPy's do.

    CuPy raises ``TypeError`` on an implicit conversion to NumPy; without this the
    ``array_api_strict`` runs would convert silently and let such a call reach the GPU
    (where it crashed the privacy profile once). Host copies go through
    ``gpu_rs.common.backend.to_numpy`` (DLPack), which this leaves working.
    """
    if importlib.util.find_spec("array_api_strict") is None:
        return
    from array_api_strict._array_object import Array

    def refuse(self, *args, **kwargs):
        raise TypeError("Implicit conversion to a NumPy array is not allowed (as in CuPy): use to_numpy")

    Array.__array__ = refuse


@pytest.fixture(params=BACKENDS, scope="session")
def backend(request):
    name = request.param
    if name == "array_api_strict" and importlib.util.find_spec("array_api_strict") is None:
        pytest.skip("array-api-strict is not installed")
    if name == "cupy":
        from gpu_rs.common.backend import cupy_available

        if importlib.util.find_spec("cupy") is None:
            pytest.skip("CuPy is not installed (pip install 'gpu-rs[gpu]' on a CUDA machine)")
        if not cupy_available():
            pytest.skip("CuPy is installed but no CUDA device is usable")
    return name


@pytest.fixture(scope="session")
def gpu_rs():
    return importlib.import_module("gpu_rs")


ORACLE_REL = 1e-12  # float accuracy of the oracles


def check_bracket(b, exact_lo, exact_hi, rel_width=1e-3, abs_width=1e-12, need_met=True):
    """The core assertion of the engine tests.

    ``lower <= exact <= upper`` (allowing the oracles' ~1e-12 relative float error),
    ``0 <= lower <= estimate <= upper <= 1``, ``met`` (unless ``need_met`` is False), and
    when ``met`` is claimed, ``upper - lower <= max(rel_width * exact, abs_width)`` with a
    factor ``1 + 2 rel_width`` so the engine may measure against its own upper bound.
    """
    lo = exact_lo * (1 - ORACLE_REL)
    hi = exact_hi * (1 + ORACLE_REL)
    info = f"exact in [{exact_lo:.15g}, {exact_hi:.15g}], engine [{b.lower:.15g}, {b.upper:.15g}]"
    assert 0.0 <= b.lower <= b.estimate <= b.upper <= 1.0, info
    # The error budget accounts for the whole width (SPEC §4).
    assert abs(b.budget.total - b.width) <= 1e-9 * b.width + 4e-16 * (b.lower + b.upper) + 1e-300, (
        f"budget {b.budget} adds up to {b.budget.total!r}, width {b.width!r}: " + info
    )
    assert b.lower <= hi, "lower bound above the exact tail: " + info
    assert b.upper >= lo, "upper bound below the exact tail: " + info
    exact = 0.5 * (exact_lo + exact_hi)
    target = max(rel_width * exact * (1 + 2 * rel_width), abs_width)
    if need_met:
        assert b.met, "requested width not met: " + info
    if b.met:
        # met must never be claimed for a wider interval than asked
        assert b.upper - b.lower <= target * (1 + 1e-9), f"width {b.upper - b.lower:.3e} > target {target:.3e}: " + info
