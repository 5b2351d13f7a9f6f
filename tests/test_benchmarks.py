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


# ------------------------------------------------------------------ the GPU check (issue 30)

CHECK_HEADER = "| check | limit | seconds | ok | result |"
TIMING_HEADER = (
    "| case | quantity | N | L | setting | slot | GPU s | CPU s | CPU/GPU | GPU result | CPU result | agree | note |"
)


def _markdown_tables(text):
    """Each ``### title`` and its rows, split on unescaped ``|``; fails on a row of the wrong width."""
    import re

    found, title = {}, None
    for line in text.splitlines():
        if line.startswith("### "):
            title = line[4:]
            found[title] = []
        elif line.startswith("|") and title is not None:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            found[title].append(cells)
    for title, rows in found.items():
        header, rule, *_ = rows
        assert all(c == "---" for c in rule), title
        assert all(len(r) == len(header) for r in rows), title
    return found


@pytest.mark.skipif(
    __import__("gpu_rs.common.backend", fromlist=["x"]).cupy_available(), reason="a CUDA device is usable here"
)
def test_gpu_check_without_a_gpu_says_so_in_one_line(tmp_path):
    import subprocess
    import time

    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=ROOT)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--gpu-check", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert time.perf_counter() - start < 60
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.count("\n") == 1 and "no usable GPU" in done.stdout, done.stdout
    assert not out.exists()


def test_gpu_check_stand_in_writes_the_table(tmp_path):
    """The whole path with NumPy standing in for the GPU: doctor, pytest, timings, a kill and a skip."""
    import math

    from benchmarks.gpu_check import JSON, LOG, MARKDOWN, Timing, run_check

    rows = (
        Timing("tail", "tail", 100, 2, 60.0, q=0.2, eps=1.0),
        Timing("profile", "profile", 100, 2, 60.0, q=0.2, profile_eps=(1.0, 2.0)),
        Timing("calibrate", "calibrate", 100, 1, 60.0, eps=1.0, eta=1e-2),
        Timing("killed", "tail", 100, 2, 1e-3, q=0.2, eps=1.0),
        Timing("skipped", "tail", 100, 2, 1e6, q=0.2, eps=1.0),
    )
    status = run_check(
        str(tmp_path),
        "numpy",
        timings=rows,
        tests=("tests/test_tail.py::test_n1_closed_form",),
        total_seconds=240.0,
        doctor_seconds=60.0,
        tests_seconds=120.0,
        test_workers=1,
    )
    assert status == 0
    with open(tmp_path / JSON, encoding="utf-8") as fh:
        res = json.load(fh)
    assert res["finished"] and res["ok"] and res["device"] == "numpy"
    doctor, tests = res["checks"]
    assert doctor["ok"] and doctor["report"]["parity"] is None
    assert tests["ok"] and tests["passed"] == 1 and tests["failures"] == tests["errors"] == 0
    assert "test_n1_closed_form" in (tmp_path / LOG).read_text()

    found = {r["case"]["key"]: r for r in res["timings"]}
    assert list(found) == [t.key for t in rows]
    for key in ("tail", "profile", "calibrate"):
        row = found[key]
        assert row["agree"] is True and row["note"] == "", row
        for side in ("gpu", "cpu"):
            run = row[side]
            assert run["seconds"] > 0 and run["result"]["backend"] == "numpy"
    tail = found["tail"]["gpu"]["result"]
    assert 0 <= tail["lower"] <= tail["upper"] <= 1
    prof = found["profile"]["cpu"]["result"]
    assert prof["eps"] == [1.0, 2.0] and all(lo <= up for lo, up in zip(prof["lower"], prof["upper"], strict=True))
    cal = found["calibrate"]["gpu"]["result"]
    assert 0 < cal["q"] < 0.5 and cal["upper"] <= 1e-2
    assert "killed at its slot" in found["killed"]["note"] and found["killed"]["agree"] is None
    assert found["skipped"]["note"].count("skipped:") == 2
    assert [side["backend"] for side in res["lattice_forms"]] == ["numpy", "numpy"]
    for side in res["lattice_forms"]:  # both forms of the lattices' convolution: the same floats on NumPy
        assert len(side["rows"]) == 4 and all(r["rel_diff"] == 0.0 and r["loop_us"] > 0 for r in side["rows"])
    for p in res["profiles"]:  # NumPy against itself: whichever row the noise made slower
        assert p["key"] in found and p["backend"] == "numpy"
        if "seconds" in p:
            assert f"#### {p['key']}, numpy" in (tmp_path / "profiles.txt").read_text(encoding="utf-8")

    text = (tmp_path / MARKDOWN).read_text(encoding="utf-8")
    assert CHECK_HEADER in text.splitlines() and TIMING_HEADER in text.splitlines()
    tables = _markdown_tables(text)
    checks = tables["Checks"]
    timing = next(v for k, v in tables.items() if k.startswith("CPU against GPU"))
    assert len(checks) == 2 + 2 and [r[0] for r in timing[2:]] == [t.key for t in rows]
    cells = dict(zip(timing[0], timing[2], strict=True))
    assert cells["GPU result"] == f"[{tail['lower']:.4e}, {tail['upper']:.4e}]"
    assert cells["agree"] == "yes" and cells["CPU/GPU"].endswith("×")
    ratio = found["tail"]["cpu"]["seconds"] / found["tail"]["gpu"]["seconds"]
    assert math.isclose(float(cells["CPU/GPU"][:-1]), ratio, rel_tol=1e-2)


def test_gpu_check_stops_when_the_device_backend_fails(tmp_path, monkeypatch):
    """A doctor whose device side cannot run (say array-api-compat is missing) ends the check at once."""
    from benchmarks import gpu_check

    error = "ModuleNotFoundError: No module named 'array_api_compat'"
    report = {
        "gpus": ["device 0: a GPU"],
        "parity": {"ok": False, "numpy": {"lower": 0.1, "upper": 0.2}, "cupy": {"error": error}},
    }

    def doctor(device, limit):
        assert device == "cupy"
        return {
            "name": "gpu-rs doctor --json",
            "limit": limit,
            "seconds": 0.5,
            "report": report,
            "ok": False,
            "result": error,
        }

    def never(*args, **kwargs):
        raise AssertionError("ran after the device backend failed")

    monkeypatch.setattr(gpu_check, "_doctor", doctor)
    monkeypatch.setattr(gpu_check, "_pytest", never)
    monkeypatch.setattr(gpu_check, "Runner", never)
    assert gpu_check.run_check(str(tmp_path), "cupy") == 1
    with open(tmp_path / gpu_check.JSON, encoding="utf-8") as fh:
        res = json.load(fh)
    assert res["finished"] and not res["ok"] and res["gpus"] == ["device 0: a GPU"] and res["timings"] == []
    text = (tmp_path / gpu_check.MARKDOWN).read_text(encoding="utf-8")
    assert "result: FAILED" in text and "array_api_compat" in text


def test_gpu_check_profiles_the_rows_the_device_loses():
    """The profiled rows are those where the device was slower, the lowest CPU/GPU first; a profile's
    text names the engine's functions and its time is that of the task run."""
    from benchmarks.cases import profiled
    from benchmarks.gpu_check import Timing, _losing

    def row(gpu, cpu):
        return {"gpu": {"result": {}, "seconds": gpu}, "cpu": {"result": {}, "seconds": cpu}}

    rows = [row(1.0, 2.0), row(3.0, 1.0), row(2.0, 1.5), {"gpu": {"error": "x"}, "cpu": {"result": {}, "seconds": 1}}]
    timings = [Timing(str(i), "tail", 100, 2, 10.0, q=0.2, eps=1.0) for i in range(4)]
    assert [t.key for t, _ in _losing(timings, rows, 2)] == ["1", "2"]
    assert [t.key for t, _ in _losing(timings, rows, 1)] == ["1"]

    name, kwargs = timings[0].task("numpy")
    assert kwargs["search_seconds"] == 0.0
    got = profiled(name, kwargs, top=10)
    assert got["seconds"] > 0 and "cumulative" in got["text"] and "tail" in got["text"]
