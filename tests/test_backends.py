"""Every public quantity gives NumPy's certified answer on every backend.

The engine tests take the ``backend`` fixture one kernel at a time; these run the
public entry points end to end (the default scope, k > 1, the profile both ways, a
calibration, composition and the distribution), so that a host copy the kernels never
see (an ``np.asarray`` of a device array, which CuPy refuses) fails here, on
``array-api-strict`` arrays made to refuse it too (``conftest.py``), and not first on
a GPU. Both answers are certified, so their intervals must overlap; and as the same algorithm
on other arrays they must agree to round-off: within 1e-6 relatively or 1e-12 (the
default ``abs_width``) absolutely, since cuFFT and NumPy's FFT round differently (an
H200 gave lower ends 2e-16 apart on 7e-10). Lower ends found by a timed search are
switched off (``search_seconds=0``) so that both sides do the same work.
"""

from __future__ import annotations

import math

import pytest

REL, ABS = 1e-6, 1e-12


@pytest.fixture
def other(backend):
    """A backend other than NumPy (NumPy is the reference)."""
    if backend == "numpy":
        pytest.skip("NumPy is the reference")
    return backend


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=REL, abs_tol=ABS)


def agree(found, reference):
    """Both intervals certified (they overlap), and the same to round-off."""
    assert max(found.lower, reference.lower) <= min(found.upper, reference.upper), (found, reference)
    for name in ("lower", "upper"):
        a, b = getattr(found, name), getattr(reference, name)
        assert close(a, b), f"{name}: {a!r} on this backend, {b!r} on NumPy"


TAILS = [
    dict(n=1000, bits=5, q=0.25, eps=math.log(2.0), scope="all"),
    dict(n=1000, bits=5, q=0.25, eps=math.log(2.0), scope="forward"),
    dict(n=10**6, bits=1, q=0.2, eps=0.05, scope="all"),
    dict(n=1000, bits=3, q=0.25, eps=1.0, scope="all", k=2),
]


@pytest.mark.parametrize(
    "case", TAILS, ids=lambda c: "-".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in c.items())
)
def test_tail(gpu_rs, other, case):
    extra = {"search_seconds": 0.0} if case["scope"] == "all" else {}
    found = gpu_rs.tail(**case, backend=other, **extra)
    reference = gpu_rs.tail(**case, backend="numpy", **extra)
    agree(found, reference)
    assert found.backend == other


@pytest.mark.parametrize("k", [1, 2])
def test_profile_both_ways(gpu_rs, other, k):
    bits, q = (5, 0.25) if k == 1 else (3, 0.3)
    found = gpu_rs.privacy_profile(1000, bits, q, k=k, backend=other, search_seconds=0.0)
    reference = gpu_rs.privacy_profile(1000, bits, q, k=k, backend="numpy", search_seconds=0.0)
    for d, r in zip(found.delta([0.5, 1.0, 2.0]), reference.delta([0.5, 1.0, 2.0]), strict=True):
        agree(d, r)
    agree(found.epsilon(1e-4), reference.epsilon(1e-4))
    assert found.backend == other


def test_calibration(gpu_rs, other):
    found = gpu_rs.calibrate(1000, 5, eps=math.log(2.0), eta=1e-3, backend=other)
    reference = gpu_rs.calibrate(1000, 5, eps=math.log(2.0), eta=1e-3, backend="numpy")
    assert close(found.q, reference.q)
    agree(found.at_q, reference.at_q)


def test_composition(gpu_rs, other):
    found = gpu_rs.compose(gpu_rs.privacy_profile(1000, 5, 0.25, backend=other, search_seconds=0.0), 3)
    reference = gpu_rs.compose(gpu_rs.privacy_profile(1000, 5, 0.25, backend="numpy", search_seconds=0.0), 3)
    agree(found.delta(2.0), reference.delta(2.0))


def test_distribution(gpu_rs, other):
    found = gpu_rs.ratio_distribution(1000, 5, 0.25, backend=other, buckets=16)
    reference = gpu_rs.ratio_distribution(1000, 5, 0.25, backend="numpy", buckets=16)
    for lo, up in ((found.probs_lower, reference.probs_upper), (reference.probs_lower, found.probs_upper)):
        assert all(float(a) <= float(b) for a, b in zip(lo, up, strict=True))
    for name in ("probs_lower", "probs_upper", "sf_lower", "sf_upper"):
        a, b = getattr(found, name), getattr(reference, name)
        assert len(a) == len(b) > 0
        for x, y in zip(a, b, strict=True):
            assert close(float(x), float(y)), name
