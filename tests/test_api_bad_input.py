"""Bad input to the API (issue 21 item 5): refused with ``ValueError``, ``ArgumentTypeError`` for wrong types.

``ArgumentTypeError`` subclasses both ``TypeError`` (what Python expects of a wrong type) and
``ValueError`` (what gpu_rs promises of every refusal), so ``except ValueError`` still catches all.
"""

from __future__ import annotations

import math
import time

import pytest

import gpu_rs
from gpu_rs.common.errors import ArgumentTypeError

TAIL = dict(n=100, bits=2, q=0.2, eps=1.0)


def refused(call, *args, kind=ValueError, match=None, **kwargs):
    start = time.perf_counter()
    with pytest.raises(kind, match=match) as info:
        call(*args, **kwargs)
    assert time.perf_counter() - start < 5.0
    assert isinstance(info.value, ValueError)
    return info.value


@pytest.fixture(scope="module")
def dist():
    return gpu_rs.ratio_distribution(100, 3, 0.2)


def test_error_class_is_both():
    assert issubclass(ArgumentTypeError, TypeError) and issubclass(ArgumentTypeError, ValueError)


@pytest.mark.parametrize("x", ["2", None, b"2", [2.0], True])
def test_sf_wrong_type(dist, x):
    refused(dist.sf, x, kind=TypeError, match="x must be a number")
    refused(dist.cdf, x, kind=TypeError, match="x must be a number")


def test_distribution_arguments():
    refused(gpu_rs.ratio_distribution, 10, 2, 0.2, tail_mass="x", kind=TypeError, match="tail_mass must be a number")
    refused(gpu_rs.ratio_distribution, 10, 2, 0.2, tail_mass=0.7, match=r"tail_mass must be a number in \(0, 0.5\)")


def test_sf_nan(dist):
    err = refused(dist.sf, math.nan, match="x must be a number")
    assert not isinstance(err, TypeError)


def test_sf_infinite_thresholds(dist):
    lo, hi = dist.sf(math.inf)
    assert lo == 0.0 <= hi <= 1.0
    lo, hi = dist.sf(-math.inf)
    assert 0.0 <= lo <= hi == 1.0


@pytest.mark.parametrize(
    ("D", "D_m", "kind", "match"),
    [
        ([0] * 6, [0] * 5 + [3], TypeError, "D must hold bit vectors .* entry 0 is 0 of type int"),
        ("000000", "000011", TypeError, "one string is one vector, not a collection"),
        (["00", "01"], "0011", TypeError, "D_m must be a non-empty sequence of bit vectors"),
        (["00", "01"], ["00", "0a"], ValueError, "D_m must hold bit vectors .* entry 1 is '0a'"),
        (["00", "01"], ["00", [0, 0.5]], ValueError, "entries 0 or 1"),
        (["00", "01"], ["00", None], TypeError, "entry 1 is None"),
        (["00", "01"], ["00", "011"], ValueError, "of one length"),
        ([], [], ValueError, "non-empty"),
        (None, ["00"], TypeError, "D must be a non-empty sequence"),
    ],
)
def test_pair_tail_collections(D, D_m, kind, match):
    refused(gpu_rs.pair_tail, D, D_m, 0.2, 1.0, kind=kind, match=match)


def test_pair_tail_accepts_strings_and_arrays():
    np = pytest.importorskip("numpy")
    a = gpu_rs.pair_tail(["000", "001"], ["000", "011"], 0.2, 1.0)
    b = gpu_rs.pair_tail(np.array([[0, 0, 0], [0, 0, 1]]), [[0, 0, 0], [0, 1, 1]], 0.2, 1.0)
    assert (a.lower, a.upper) == (b.lower, b.upper)


def test_calibrate_needs_one_target():
    refused(gpu_rs.calibrate, 100, 2, 1.0, match="give exactly one of eta .* or delta")
    refused(gpu_rs.calibrate, 100, 2, 1.0, eta=1e-3, delta=1e-3, match="give exactly one of eta")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(eta=1e-3, q_tol=1e-20), r"q_tol must be a number in \[1e-12, 0.01\)"),
        (dict(eta=1e-3, q_tol=0.2), r"q_tol must be a number in \[1e-12, 0.01\)"),
        (dict(eta=1e-300), r"eta must be a number in \[1e-30, 1\)"),
        (dict(delta=1e-300), r"delta must be a number in \[1e-30, 1\)"),
        (dict(eta=1e-3, rel_width=1e-15), r"rel_width must be a number in \[1e-09, 1\)"),
        (dict(delta=1e-3, rel_width=1e-15), r"rel_width must be a number in \[1e-09, 1\)"),
    ],
)
def test_calibrate_refuses_endless_searches(kwargs, match):
    refused(gpu_rs.calibrate, 100, 2, 1.0, match=match, **kwargs)


@pytest.mark.parametrize(
    ("change", "kind", "match"),
    [
        (dict(inclusive="yes"), TypeError, "inclusive must be True or False"),
        (dict(inclusive=1), TypeError, "inclusive must be True or False"),
        (dict(n="100"), TypeError, "n must be an integer"),
        (dict(bits=None), TypeError, "bits must be an integer"),
        (dict(q="0.2"), TypeError, r"q must be a number in \(0, 0.5\)"),
        (dict(eps="1"), TypeError, "eps must be a number"),
        (dict(eps=True), TypeError, "eps must be a number"),
        (dict(eps=1e-300), ValueError, r"eps must be a number in \[2.22045e-16, 700\)"),
        (dict(eps=None, ratio=1.0), ValueError, r"ratio must be a number in \(1, "),
        (dict(rel_width=1e-15), ValueError, r"rel_width must be a number in \[1e-09, 1\)"),
        (dict(n=10.5), ValueError, "n must be an integer"),
    ],
)
def test_tail_arguments(change, kind, match):
    refused(gpu_rs.tail, kind=kind, match=match, **{**TAIL, **change})


def test_inclusive_checked_by_pair_functions():
    refused(gpu_rs.pair_tail, ["0"], ["1"], 0.2, 1.0, inclusive="yes", kind=TypeError, match="inclusive")
    refused(gpu_rs.worst_pairs, 2, 1, 0.2, 1.0, inclusive=None, kind=TypeError, match="inclusive")


def test_smallest_eps_still_computes():
    b = gpu_rs.tail(**{**TAIL, "eps": 2.0**-52})
    assert b.ratio > 1.0 and 0.0 <= b.lower <= b.upper <= 1.0
