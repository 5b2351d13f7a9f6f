"""The every-pair lattices through the array namespace (issue 30, item 2): the same floats on every backend.

The graded blanket's and the graded clone bound's convolutions (:mod:`gpu_rs.pairs.lattice`) run in the
backend's ``xp``; NumPy gives the floats of the NumPy-only code before (pinned in
tests/test_documented_extremes.py), and ``array-api-strict`` (the stand-in for CuPy on a machine without a
GPU) must give the very same floats, in both the short-law path and the long one.
"""

from __future__ import annotations

import math

import numpy as np
import oracles_pairs as op
import pytest

from gpu_rs.common.backend import get_backend, to_numpy
from gpu_rs.pairs import blanket, lattice, reduction


@pytest.fixture
def xp(backend):
    return get_backend(backend).xp


def test_shifted_sums_are_the_numpy_floats(xp):
    rng = np.random.default_rng(30)
    for n in (7, lattice.SMALL + 5):  # the short path (all products at once) and the long one
        s, w = rng.random(n), rng.random(12)
        shifts = sorted(rng.choice(40, 12, replace=False).tolist())
        want = lattice.shifted_sum(s, shifts, w, n + 40, np)
        got = lattice.shifted_sum(xp.asarray(s), shifts, xp.asarray(w), n + 40, xp)
        assert to_numpy(got).tolist() == want.tolist()


def test_blanket_rows_are_the_numpy_floats(xp):
    h, w = blanket.report_values(5, 0.2446, 5, math.log(2.0))
    kern = blanket.spread(h, w, blanket.clip_level(h, w, blanket.CELLS[0]), blanket.CELLS[0])
    want = blanket.deltas(kern, 60, xp=np)
    got = blanket.deltas(kern, 60, xp=xp)
    assert got[0].tolist() == want[0].tolist() and got[1:] == want[1:]
    assert blanket.blanket_delta(1000, 5, 0.2446, 5, math.log(2.0), xp=xp) == 0.01898355872649546


def test_graded_clone_rows_are_the_numpy_floats(xp):
    eps = np.array([0.1, 0.7, 1.5])
    want = reduction.graded_deltas(0.2, 4, 30, eps)
    assert reduction.graded_deltas(0.2, 4, 30, eps, xp).tolist() == want.tolist()
    assert (
        reduction.graded_delta(300, 5, 0.2, 4, eps, xp).tolist() == reduction.graded_delta(300, 5, 0.2, 4, eps).tolist()
    )


def test_fft_sum_is_within_its_bound_of_the_direct_sum(xp):
    rng = np.random.default_rng(31)
    for n, k in [(3000, 200), (20000, 600)]:
        s, w = rng.random(n), rng.random(k)
        s, w = s / s.sum(), w / w.sum()
        shifts = np.sort(rng.choice(3 * k, k, replace=False))
        shifts = (shifts - shifts[0]).tolist()
        direct = lattice.shifted_sum(s, shifts, w, n + shifts[-1], np)
        got, err, _ = lattice.add_report(xp.asarray(s), shifts, xp.asarray(w), 1e-9, 1.0, xp)
        assert err > 1e-9  # the law's own absolute error is carried, and the FFT's added
        assert float(np.abs(to_numpy(got) - direct).sum()) <= err - 1e-9 * 0.999
        # with no room for the FFT's error the direct sum is taken: the same floats
        same, carried, _ = lattice.add_report(xp.asarray(s), shifts, xp.asarray(w), 0.0, 0.0, xp)
        assert to_numpy(same).tolist() == direct.tolist() and carried == 0.0


def test_blanket_rows_by_fft_contain_the_exact_rows(xp, monkeypatch):
    """Every report added by FFT (thresholds lowered to 1): each row still at least the exact ``δ_m`` of the
    spread lattice's pair (tests/oracles_pairs.py), and at most 0.2 % above the direct rows."""
    h, w = blanket.report_values(8, 0.05, 8, 0.5)
    kern = blanket.spread(h, w, blanket.clip_level(h, w, blanket.CELLS[0]), blanket.CELLS[0])
    direct = blanket.deltas(kern, 4, xp=np)[0]
    used = []
    monkeypatch.setattr(lattice, "FFT_KEYS", 1)
    monkeypatch.setattr(lattice, "FFT_LENGTH", 1)
    original = lattice.fft_error
    monkeypatch.setattr(lattice, "fft_error", lambda *a: used.append(1) or original(*a))
    got = blanket.deltas(kern, 4, xp=xp)[0]
    assert used
    types = op.reduced_types(8, 8, 0.05, "blanket")
    for m in range(1, 5):
        exact = float(op._delta_m_exact(types, m, [math.exp(0.5)])[0])
        assert exact <= got[m - 1] <= direct[m - 1] * (1.0 + 2e-3) + 1e-12, (m, exact, got, direct)
