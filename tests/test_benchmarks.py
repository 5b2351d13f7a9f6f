"""Smoke test of the benchmark (``python -m benchmarks --quick``, issue 4).

Runs the quick benchmark once (about 15 s: one spawned worker, small cases) and checks
that it prints the tables and that its numbers agree with each other: the certified
interval overlaps the Monte Carlo 99.9 % interval, the naive grid interval brackets the
certified one, calibration certifies, and Monte Carlo is wider than the exact interval.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    import io
    from contextlib import redirect_stdout

    from benchmarks.__main__ import main

    path = tmp_path_factory.mktemp("bench") / "quick.json"
    buf = io.StringIO()
    with redirect_stdout(buf):
        status = main(["--quick", "--json", str(path)])
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return status, buf.getvalue(), data


def test_quick_benchmark(quick_run):
    status, out, data = quick_run
    assert status == 0

    # The printed tables and their columns.
    for title in ("Certified engine", "Baselines", "3σ rule", "Issue-4 targets", "Cost against N", "Cost against L"):
        assert title in out
    for column in (
        "case",
        "backend",
        "seconds",
        "peak RSS",
        "tracemalloc peak",
        "terms",
        "width",
        "rel width",
        "MC CI width",
        "MC/exact width",
        "naive [P_down, P_up]",
        "q (3σ)",
        "certified tail at q (3σ)",
    ):
        assert column in out, column
    assert "ERROR" not in out

    tails = [c for c in data["cases"] if c["case"]["kind"] == "tail"]
    assert len(tails) >= 2
    for item in tails:
        run = item["exact"]
        r = run["result"]
        assert r["backend"] == "numpy"
        assert run["seconds"] > 0 and run["peak_rss"] > 0
        assert 0.0 < r["lower"] < r["upper"] < 1.0
        assert r["met"]
        # Monte Carlo: a real sample, a 99.9 % interval that overlaps the certified one, and wider.
        m = item["mc"]["result"]
        assert m["samples"] > 1000 and m["seconds"] >= 0.5
        assert m["ci_lower"] <= m["estimate"] <= m["ci_upper"]
        assert m["ci_lower"] <= r["upper"] and r["lower"] <= m["ci_upper"]
        assert m["ci_width"] > 10 * (r["upper"] - r["lower"])
        # Naive grid: rounding atoms down/up brackets the true tail (up to FFT round-off).
        nv = item["naive"]["result"]
        assert nv["grid"] >= 1 << 10
        assert nv["lower"] <= r["upper"] + 1e-9
        assert nv["upper"] >= r["lower"] - 1e-9
        # The 3σ rule's q and the certified tail there.
        t3 = item["three_sigma"]
        assert 0.0 < t3["q"] < 0.5
        r3 = t3["tail"]["result"]
        assert 0.0 <= r3["lower"] <= r3["upper"] <= 1.0

    cal = [c for c in data["cases"] if c["case"]["kind"] == "calibrate"]
    assert cal
    for item in cal:
        r = item["exact"]["result"]
        assert 0.0 < r["q"] < 0.5
        assert r["upper"] <= item["case"]["eta"]

    for label in ("growth_n", "growth_l"):
        rows = data[label]
        assert len(rows) >= 3
        for row in rows:
            r = row["run"]["result"]
            assert r["lower"] <= r["upper"]
            assert row["run"]["seconds"] > 0
