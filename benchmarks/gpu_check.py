"""``python -m benchmarks --gpu-check OUTDIR``: the CuPy path checked in one command (issue 30).

Where CuPy sees a CUDA device (cupy-cuda12x or cupy-cuda13x: only ``import cupy`` is used), it
runs, each item under its own time limit:

1. ``gpu-rs doctor --json``: versions, the device, and the NumPy-against-CuPy parity case;
2. pytest on the tests that use the ``cupy`` backend (``-k cupy``), the log in ``pytest.log``;
3. a CPU-against-GPU timing table of the default-scope tail, privacy profile and calibration at
   ``L = 5, 40, 64`` (``N = 1e4, 1e7, 1e9``);
4. profiles (:mod:`cProfile`, both sides) of the :data:`PROFILED_ROWS` rows where the device lost most
   to NumPy, in ``profiles.txt``: where the next session should look;
5. the lattices' convolution in two forms on each side (:func:`benchmarks.cases.lattice_forms`): one
   kernel launch per point, as now, against a launch-free candidate.

``gpu-check.md`` and ``gpu-check.json`` are rewritten in OUTDIR after every item, so a run cut
short still leaves its table. Without a usable GPU it prints one line and exits 0.

Why it fits in :data:`TOTAL_SECONDS`: the doctor and pytest run in their own process groups,
killed at :data:`DOCTOR_SECONDS` and :data:`TESTS_SECONDS` (both fit the total); every timing (and
each side's warm-up) runs in a spawned child of :class:`benchmarks.measure.Runner`, killed at its
slot; an item whose whole slot no longer fits before the deadline is skipped with a note, not
started. A calibration also gets its slot as ``max_seconds``, so one predicted to take longer
stops early with ``TimeBudgetError`` (noted as predicted over its slot) instead of being killed.

:func:`run_check` takes the device backend as a parameter: with ``device="numpy"`` (the NumPy
stand-in) the whole path runs, and writes its files, on a machine without a GPU.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import json
import math
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .measure import Runner
from .report import Table, fmt_p, fmt_s, machine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOTAL_SECONDS = 450.0
"""Deadline of the whole check (the issue asks for under 8 minutes; the rest is start-up and writing)."""
DOCTOR_SECONDS = 90.0
"""Limit of ``gpu-rs doctor --json`` (the first CuPy use compiles its kernels)."""
TESTS_SECONDS = 180.0
"""Limit of the pytest run."""
WARM_SECONDS = 45.0
"""Slot of each side's warm-up (imports, CUDA context, first kernels), kept out of the timings."""
TEST_WORKERS = 4
"""pytest-xdist workers for the tests where pytest-xdist is importable (they share the one GPU)."""
PROFILE_EPS = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
"""The ``ε`` at which a timed profile computes ``δ``."""
PROFILED_ROWS = 2
"""How many of the rows where the device is slower than NumPy are profiled, the slowest relative first."""
PROFILE_OVERHEAD = 2.0
"""A profiled run's limit: this times the side's timed seconds, plus :data:`PROFILE_SPARE` (cProfile slows
Python-heavy code about 1.5 times)."""
PROFILE_SPARE = 10.0
FORMS_SECONDS = 60.0
"""Limit of each side of item 5, the lattice forms."""
MARKDOWN, JSON, LOG, JUNIT = "gpu-check.md", "gpu-check.json", "pytest.log", "pytest.xml"
PROFILES = "profiles.txt"


@dataclass(frozen=True)
class Timing:
    """One row of the timing table: a default-scope quantity, timed on the device and on NumPy.

    ``quantity`` is ``"tail"`` (at ``q``, ``eps``), ``"profile"`` (``δ`` at :data:`PROFILE_EPS`, at
    ``q``) or ``"calibrate"`` (``eps``, ``eta``); ``slot`` is each side's time limit in seconds. A tail
    runs without the lower end's timed search (``search_seconds=0``): that search takes the time it is
    given on either side, so it would time the budget and not the backend.
    """

    key: str
    quantity: str
    n: int
    bits: int
    slot: float
    q: float = math.nan
    eps: float = math.nan
    eta: float = math.nan
    profile_eps: tuple[float, ...] = field(default=PROFILE_EPS)

    def task(self, backend: str) -> tuple[str, dict[str, Any]]:
        """The :mod:`benchmarks.cases` task and its arguments (``scope=None``: the default scope)."""
        base: dict[str, Any] = dict(n=self.n, bits=self.bits, backend=backend, scope=None)
        if self.quantity == "tail":
            return "exact_tail", dict(base, q=self.q, eps=self.eps, search_seconds=0.0)
        if self.quantity == "profile":
            return "profile_deltas", dict(base, q=self.q, eps=list(self.profile_eps))
        return "calibration", dict(base, eps=self.eps, eta=self.eta, max_seconds=self.slot)

    def setting(self) -> str:
        """The setting in a table cell."""
        if self.quantity == "tail":
            return f"q={self.q:g}, ε={self.eps:.4g}"
        if self.quantity == "profile":
            grid = self.profile_eps
            return f"q={self.q:g}, δ at {len(grid)} ε in [{min(grid):g}, {max(grid):g}]"
        return f"ε={self.eps:.4g}, η={self.eta:g}"


TIMINGS = (
    Timing("tail L=64", "tail", 10**9, 64, 30.0, q=0.362, eps=2.0),
    Timing("profile L=40", "profile", 10**7, 40, 30.0, q=0.351),
    Timing("profile L=5", "profile", 10**4, 5, 30.0, q=0.2247),
    Timing("profile L=64", "profile", 10**9, 64, 30.0, q=0.362),
    Timing("tail L=5", "tail", 10**4, 5, 30.0, q=0.2247, eps=math.log(2.0)),
    Timing("calibrate L=5", "calibrate", 10**4, 5, 45.0, eps=math.log(2.0), eta=1e-3),
    Timing("tail L=40", "tail", 10**7, 40, 60.0, q=0.351, eps=2.0),
    Timing("calibrate L=40", "calibrate", 10**7, 40, 60.0, eps=2.0, eta=1e-3),
    Timing("calibrate L=64", "calibrate", 10**9, 64, 90.0, eps=2.0, eta=1e-3),
)
"""The timing table, cheapest first so that the deadline cuts the costly rows.

With NumPy on both sides (the stand-in) at fec73e1 on the 2-core development machine, loaded, the
rows took 0.8–1.2, 1.5, 2.8, 2.9–3.3, 13, 22, 32 and 34–37 s a side, and the calibration at L = 64
stopped after 6 s, predicting 75 s (over the 60 s slot it had then). The doctor and pytest take at
most 270 s of the 450; the rows share what they leave.
"""

WARM_TAIL = dict(n=1000, bits=5, q=0.2446, eps=math.log(2.0), scope="forward")
"""The warm-up task: a small forward tail."""


@dataclass(frozen=True)
class Deadline:
    """The check's deadline on the monotonic clock; whether a slot still fits before it."""

    end: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        """The deadline ``seconds`` from now."""
        return cls(time.monotonic() + seconds)

    def refusal(self, slot: float) -> str | None:
        """``None`` where ``slot`` seconds fit before the deadline, else the note of the skip."""
        left = self.end - time.monotonic()
        if slot <= left:
            return None
        return f"skipped: {max(left, 0.0):.0f} s of the check's time left, less than its {slot:g} s"


def _run_limited(cmd: list[str], limit: float, log: str | None = None) -> dict[str, Any]:
    """Run ``cmd`` in ``ROOT`` in its own process group, killed with the group after ``limit`` s.

    Its output goes to the file ``log`` (stdout and stderr) or is returned as ``stdout``.
    """
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p))
    start = time.perf_counter()
    with open(log or os.devnull, "w", encoding="utf-8") as sink:
        proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env=env,
            stdout=sink if log else subprocess.PIPE,
            stderr=subprocess.STDOUT if log else subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        try:
            stdout, _ = proc.communicate(timeout=limit)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, _ = proc.communicate()
            timed_out = True
    return {"rc": proc.returncode, "timed_out": timed_out, "seconds": time.perf_counter() - start, "stdout": stdout}


def _doctor(device: str, limit: float) -> dict[str, Any]:
    """``gpu-rs doctor --json`` in a child: its report, and whether the parity case passed."""
    run = _run_limited([sys.executable, "-m", "gpu_rs", "doctor", "--json"], limit)
    check: dict[str, Any] = {"name": "gpu-rs doctor --json", "limit": limit, "seconds": run["seconds"]}
    if run["timed_out"]:
        return dict(check, ok=False, result=f"killed at its {limit:g} s limit")
    try:
        report = json.loads(run["stdout"])
    except json.JSONDecodeError:
        return dict(check, ok=False, result=f"exit status {run['rc']}, no JSON report")
    check["report"] = report
    parity = report.get("parity")
    if parity is None:
        ok = device != "cupy" and bool(report.get("ok"))
        return dict(check, ok=ok, result="parity skipped: the doctor found no GPU")
    sides = []
    for backend in ("numpy", "cupy"):
        got = parity.get(backend, {})
        sides.append(f"{backend} " + (got["error"] if "error" in got else f"[{got['lower']:.6e}, {got['upper']:.6e}]"))
    verdict = "intervals overlap" if parity["ok"] else "FAILED: intervals do not overlap or a side failed"
    return dict(check, ok=bool(parity["ok"]), result=f"{verdict}: " + "; ".join(sides))


def _pytest(device: str, tests: Sequence[str], limit: float, outdir: str, workers: int) -> dict[str, Any]:
    """pytest on ``tests`` with ``-k device``, killed at ``limit``; counts from its JUnit XML."""
    junit = os.path.join(outdir, JUNIT)
    if os.path.exists(junit):
        os.remove(junit)
    # pytest-benchmark (in the GPU machines' image) warns when xdist is active, and the suite's
    # filterwarnings = error makes that warning an internal error before any test runs.
    cmd = [sys.executable, "-m", "pytest", *tests, "-k", device, "-q", "-rfE", "-p", "no:cacheprovider"]
    cmd += ["-p", "no:benchmark"]
    cmd += ["--junitxml", junit]
    if workers > 1 and importlib.util.find_spec("xdist") is not None:
        cmd += ["-n", str(workers)]
    run = _run_limited(cmd, limit, log=os.path.join(outdir, LOG))
    check: dict[str, Any] = {
        "name": f"pytest -k {device}",
        "command": " ".join(cmd[1:]),
        "limit": limit,
        "seconds": run["seconds"],
        "rc": run["rc"],
    }
    if run["timed_out"]:
        return dict(check, ok=False, result=f"killed at its {limit:g} s limit ({LOG} holds the tests that ran)")
    if not os.path.exists(junit):
        return dict(check, ok=False, result=f"exit status {run['rc']}, no report (see {LOG})")
    counts = {k: 0 for k in ("tests", "failures", "errors", "skipped")}
    failed = []
    for suite in ET.parse(junit).getroot().iter("testsuite"):
        for k in counts:
            counts[k] += int(suite.get(k, "0"))
        for case in suite.iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                failed.append(f"{case.get('classname')}::{case.get('name')}")
    passed = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
    check.update(counts, passed=passed, failed=failed)
    summary = f"{passed} passed, {counts['failures']} failed, {counts['errors']} errors, {counts['skipped']} skipped"
    ok = run["rc"] == 0 and passed > 0
    if failed:
        summary += ": " + ", ".join(failed[:5]) + (f" and {len(failed) - 5} more" if len(failed) > 5 else "")
    return dict(check, ok=ok, result=summary)


def _side_note(side: dict[str, Any]) -> tuple[str, bool]:
    """What a timed side says in the note column, and whether it is a failure."""
    if "skipped" in side:
        return side["skipped"], False
    error = side.get("error")
    if error is None:
        return "", False
    if error.startswith("timeout after"):
        return f"killed at its slot ({error})", False
    if error.startswith("TimeBudgetError"):
        return "predicted over its slot, stopped early (TimeBudgetError; its estimate in the JSON)", False
    return f"ERROR {error}", True


def _summary(quantity: str, result: dict[str, Any]) -> str:
    if quantity == "tail":
        return f"[{fmt_p(result['lower'], 4)}, {fmt_p(result['upper'], 4)}]"
    if quantity == "profile":
        return f"δ({result['eps'][0]:g}) in [{fmt_p(result['lower'][0], 4)}, {fmt_p(result['upper'][0], 4)}]"
    return f"q = {result['q']:.8g}, tail <= {fmt_p(result['upper'], 4)}"


def _agree(timing: Timing, a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Tails and δ: the two certified intervals overlap; calibration: both certify ``tail <= η``."""
    if timing.quantity == "calibrate":
        return a["upper"] <= timing.eta and b["upper"] <= timing.eta
    if timing.quantity == "tail":
        return max(a["lower"], b["lower"]) <= min(a["upper"], b["upper"])
    pairs = zip(a["lower"], a["upper"], b["lower"], b["upper"], strict=True)
    return all(max(lo_a, lo_b) <= min(up_a, up_b) for lo_a, up_a, lo_b, up_b in pairs)


def _time_side(runner: Runner, timing: Timing, deadline: Deadline, warm: dict[str, Any]) -> dict[str, Any]:
    """One side of a row, skipped where its slot (and a warm-up, for a new worker) no longer fits.

    ``warm`` is the side's state: ``done`` (its worker is warm), ``runs`` (warm-ups so far), and
    ``error`` once a warm-up failed (then the side is not tried again).
    """
    if "error" in warm:
        return {"error": f"warm-up: {warm['error']}"}
    cold = not warm.get("done")
    refusal = deadline.refusal(timing.slot + (WARM_SECONDS if cold else 0.0))
    if refusal:
        return {"skipped": refusal + (" (slot and warm-up)" if cold else "")}
    if cold:
        got = runner.run("exact_tail", dict(WARM_TAIL, backend=runner.backend), trace=False, timeout=WARM_SECONDS)
        warm["runs"] = warm.get("runs", 0) + 1
        if "error" in got:
            warm["error"] = got["error"]
            return {"error": f"warm-up: {got['error']}"}
        warm["done"] = True
    name, kwargs = timing.task(runner.backend)
    got = runner.run(name, kwargs, trace=False, timeout=timing.slot)
    if got.get("error", "").startswith("timeout after"):
        warm["done"] = False  # the worker was killed: the next one warms up afresh
    return got


def _timing_row(timing: Timing, gpu: dict[str, Any], cpu: dict[str, Any], device: str) -> dict[str, Any]:
    notes, failed = [], False
    for label, side in (("GPU", gpu), ("CPU", cpu)):
        note, bad = _side_note(side)
        if note:
            notes.append(f"{label}: {note}")
        failed |= bad
    agree = None
    if "result" in gpu and "result" in cpu:
        agree = _agree(timing, gpu["result"], cpu["result"])
        failed |= not agree
    if "result" in gpu and gpu["result"]["backend"] != device:
        notes.append(f"GPU side ran on {gpu['result']['backend']}, not {device}")
        failed = True
    return {
        "case": dataclasses.asdict(timing),
        "setting": timing.setting(),
        "gpu": gpu,
        "cpu": cpu,
        "agree": agree,
        "note": "; ".join(notes),
        "ok": not failed,
    }


def _losing(timings: Sequence[Timing], rows: list[dict[str, Any]], count: int) -> list[tuple[Timing, dict[str, Any]]]:
    """The ``count`` rows where both sides ran and the device was slower than NumPy, the lowest CPU/GPU first."""
    timed = [(t, r) for t, r in zip(timings, rows, strict=False) if "result" in r["gpu"] and "result" in r["cpu"]]
    losing = [(t, r) for t, r in timed if r["cpu"]["seconds"] < r["gpu"]["seconds"]]
    return sorted(losing, key=lambda tr: tr[1]["cpu"]["seconds"] / tr[1]["gpu"]["seconds"])[:count]


def _profile_side(runner: Runner, timing: Timing, timed: float, deadline: Deadline) -> dict[str, Any]:
    """One side of a row run again under cProfile (:func:`benchmarks.cases.profiled`), or why not."""
    limit = PROFILE_OVERHEAD * timed + PROFILE_SPARE
    out: dict[str, Any] = {"key": timing.key, "backend": runner.backend, "limit": limit}
    refusal = deadline.refusal(limit)
    if refusal:
        return dict(out, note=refusal)
    name, kwargs = timing.task(runner.backend)
    got = runner.run("profiled", dict(task=name, kwargs=kwargs), trace=False, timeout=limit)
    if "error" in got:
        return dict(out, note=got["error"])
    return dict(out, seconds=got["result"]["seconds"], text=got["result"]["text"], note="")


def _write_profiles(outdir: str, profiles: list[dict[str, Any]]) -> None:
    """``profiles.txt``: each profile's heading, then its text."""
    parts = [
        f"#### {p['key']}, {p['backend']}: {fmt_s(p['seconds'])} under cProfile\n\n{p['text']}"
        for p in profiles
        if p.get("text")
    ]
    with open(os.path.join(outdir, PROFILES), "w", encoding="utf-8") as fh:
        fh.write("\n".join(parts))


def _cell(side: dict[str, Any]) -> str:
    return fmt_s(side["seconds"]) if "result" in side else "—"


def tables(res: dict[str, Any]) -> list[Table]:
    """The checks and the timing table of a (possibly partial) run."""
    checks = Table("Checks", ["check", "limit", "seconds", "ok", "result"])
    for c in res["checks"]:
        checks.add([c["name"], fmt_s(c["limit"]), fmt_s(c["seconds"]), "yes" if c["ok"] else "NO", c["result"]])
    timing = Table(
        f"CPU against GPU: default scope ({res['device']} against numpy)",
        [
            "case",
            "quantity",
            "N",
            "L",
            "setting",
            "slot",
            "GPU s",
            "CPU s",
            "CPU/GPU",
            "GPU result",
            "CPU result",
            "agree",
            "note",
        ],
        [
            "Each side in a spawned child after a warm-up, killed at its slot; a row that no longer fits",
            f"before the deadline ({res['total_seconds']:g} s) is skipped. agree: the certified intervals overlap"
            " (calibration: both certify tail <= η).",
        ],
    )
    for row in res["timings"]:
        c, gpu, cpu = row["case"], row["gpu"], row["cpu"]
        ratio = f"{cpu['seconds'] / gpu['seconds']:.3g}×" if "result" in gpu and "result" in cpu else "—"
        agree = "—" if row["agree"] is None else ("yes" if row["agree"] else "NO")
        results = [_summary(c["quantity"], s["result"]) if "result" in s else "—" for s in (gpu, cpu)]
        timing.add(
            [
                c["key"],
                c["quantity"],
                f"{c['n']:.0e}",
                c["bits"],
                row["setting"],
                fmt_s(c["slot"]),
                _cell(gpu),
                _cell(cpu),
                ratio,
                *results,
                agree,
                row["note"],
            ]
        )
    profiles = Table(
        f"Profiles ({PROFILES})",
        ["case", "backend", "limit", "seconds under cProfile", "note"],
        ["The rows where the device was slowest relative to NumPy, run again under cProfile on each side."],
    )
    for p in res.get("profiles", []):
        profiles.add(
            [p["key"], p["backend"], fmt_s(p["limit"]), fmt_s(p["seconds"]) if "seconds" in p else "—", p["note"]]
        )
    forms = Table(
        "The lattices' convolution, µs per report",
        ["backend", "points", "cells", "span", "one add per point", "sliding windows", "largest relative difference"],
        ["One add per point (`shifted_sum`, as the every-pair lattices run) against one gather and one sum."],
    )
    for side in res.get("lattice_forms", []):
        for r in side.get("rows", []):
            row = [
                r["points"],
                r["cells"],
                r["span"],
                f"{r['loop_us']:.1f}",
                f"{r['windows_us']:.1f}",
                f"{r['rel_diff']:.1e}",
            ]
            forms.add([side["backend"], *row])
        if "note" in side:
            forms.add([side["backend"], "—", "—", "—", "—", "—", side["note"]])
    extra = ([profiles] if res.get("profiles") else []) + ([forms] if res.get("lattice_forms") else [])
    return [checks, timing, *extra]


def render(res: dict[str, Any]) -> str:
    """The Markdown file: how and where it ran, then :func:`tables`."""
    m, took = res["machine"], fmt_s(res["seconds"])
    head = [
        "## GPU check",
        "",
        f"- command: `{res['command']}`",
        f"- date: {m['date']}; " + ("finished" if res["finished"] else "RUNNING or cut short") + f" after {took}",
        f"- device: {res['device']}"
        + ("" if res["device"] == "cupy" else " (the NumPy stand-in: no GPU, a self-test)"),
        f"- GPU: {'; '.join(res['gpus']) or '—'}; CuPy: {res['cupy']}",
        f"- machine: {m['cpu']}, {m['cores']} logical cores, {m['memory']} RAM; {m['os']}",
        f"- python {m['python']}, numpy {m['numpy']}, scipy {m['scipy']}, gpu_rs {m['gpu_rs']}, git {m['git']}",
        f"- result: {'OK' if res['ok'] else 'FAILED'}",
        "",
    ]
    return "\n".join(head) + "\n" + "\n\n".join(t.markdown() for t in tables(res)) + "\n"


def _write(outdir: str, res: dict[str, Any]) -> None:
    """Rewrite both files (each replaced whole, so a reader never sees half a file)."""
    for name, text in ((JSON, json.dumps(res, indent=1, default=str)), (MARKDOWN, render(res))):
        path = os.path.join(outdir, name)
        with open(path + ".tmp", "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(path + ".tmp", path)


def _cupy_distribution() -> str:
    """Which CuPy wheel provides ``cupy`` (cupy-cuda12x, cupy-cuda13x, …), without importing it."""
    names = importlib.metadata.packages_distributions().get("cupy", [])
    return ", ".join(f"{d} {importlib.metadata.version(d)}" for d in names) or "no CuPy distribution found"


def run_check(
    outdir: str,
    device: str = "cupy",
    *,
    timings: Sequence[Timing] = TIMINGS,
    tests: Sequence[str] = ("tests",),
    total_seconds: float = TOTAL_SECONDS,
    doctor_seconds: float = DOCTOR_SECONDS,
    tests_seconds: float = TESTS_SECONDS,
    test_workers: int = TEST_WORKERS,
    command: str = "",
) -> int:
    """Run the doctor, the tests and the timing table on ``device``, writing OUTDIR as it goes.

    Parameters
    ----------
    outdir : str
        Folder for ``gpu-check.md``, ``gpu-check.json``, ``pytest.log``, ``pytest.xml`` and, where the
        device lost a row to NumPy, ``profiles.txt`` (created).
    device : {"cupy", "numpy"}
        The backend checked against NumPy; ``"numpy"`` is the stand-in that runs without a GPU.
    timings, tests : sequence
        The timing rows, and the pytest paths or node ids (``-k device`` selects among them).
    total_seconds, doctor_seconds, tests_seconds : float
        The deadline of the whole check and the limits of the doctor and of pytest;
        ``doctor_seconds + tests_seconds <= total_seconds``.
    test_workers : int
        pytest-xdist workers where pytest-xdist is importable (1: none).
    command : str
        The command line, for the report.

    Returns
    -------
    int
        0 when every check passed and every timed pair agreed (a skipped or killed timing is a
        note, not a failure), else 1.
    """
    if device not in ("cupy", "numpy"):
        raise ValueError(f"device must be 'cupy' or 'numpy' (the stand-in): got {device!r}")
    if not 0 < doctor_seconds + tests_seconds <= total_seconds:
        raise ValueError(
            f"doctor_seconds + tests_seconds must be positive and at most total_seconds={total_seconds:g}: "
            f"got {doctor_seconds:g} + {tests_seconds:g}"
        )
    deadline = Deadline.after(total_seconds)
    start = time.perf_counter()
    os.makedirs(outdir, exist_ok=True)
    res: dict[str, Any] = {
        "command": command or f"run_check({outdir!r}, device={device!r})",
        "device": device,
        "total_seconds": total_seconds,
        "machine": machine(),
        "cupy": _cupy_distribution(),
        "gpus": [],
        "checks": [],
        "timings": [],
        "finished": False,
        "seconds": 0.0,
        "ok": True,
    }

    def record() -> None:
        res["seconds"] = time.perf_counter() - start
        res["ok"] = all(c["ok"] for c in res["checks"]) and all(r["ok"] for r in res["timings"])
        _write(outdir, res)

    def say(line: str) -> None:
        print(f"gpu-check: {line}", file=sys.stderr, flush=True)

    record()
    say(f"gpu-rs doctor (limit {doctor_seconds:g} s) …")
    doctor = _doctor(device, doctor_seconds)
    res["gpus"] = doctor.get("report", {}).get("gpus", [])
    res["checks"].append(doctor)
    record()
    say(f"doctor: {doctor['result']}")
    if "error" in (doctor.get("report", {}).get("parity") or {}).get(device, {}):
        res["finished"] = True
        record()
        say(f"stopped: the {device} backend does not run (see docs/benchmarks.md, GPU check, for a missing package)")
        return 1
    say(f"pytest -k {device} (limit {tests_seconds:g} s, log in {os.path.join(outdir, LOG)}) …")
    res["checks"].append(_pytest(device, tests, tests_seconds, outdir, test_workers))
    record()
    say(f"pytest: {res['checks'][-1]['result']}")
    warm: dict[str, dict[str, Any]] = {"gpu": {}, "cpu": {}}
    res["warm_up"] = warm
    with Runner(device, fresh=False) as on_device, Runner("numpy", fresh=False) as on_cpu:
        for timing in timings:
            say(
                f"[{timing.key}] {timing.quantity} n={timing.n} bits={timing.bits} (slot {timing.slot:g} s each side) …"
            )
            gpu = _time_side(on_device, timing, deadline, warm["gpu"])
            cpu = _time_side(on_cpu, timing, deadline, warm["cpu"])
            res["timings"].append(_timing_row(timing, gpu, cpu, device))
            record()
        res["profiles"] = []
        for timing, row in _losing(timings, res["timings"], PROFILED_ROWS):
            for side, runner in (("gpu", on_device), ("cpu", on_cpu)):
                say(f"[{timing.key}] profile on {runner.backend} …")
                res["profiles"].append(_profile_side(runner, timing, row[side]["seconds"], deadline))
                _write_profiles(outdir, res["profiles"])
                record()
        res["lattice_forms"] = []
        for runner in (on_device, on_cpu):
            refusal = deadline.refusal(FORMS_SECONDS)
            say(f"lattice forms on {runner.backend} …")
            got = (
                {"error": refusal}
                if refusal
                else runner.run("lattice_forms", {"backend": runner.backend}, trace=False, timeout=FORMS_SECONDS)
            )
            res["lattice_forms"].append(got.get("result") or {"backend": runner.backend, "note": got.get("error", "")})
            record()
    res["finished"] = True
    record()
    print(render(res), flush=True)
    verdict = "OK" if res["ok"] else "FAILED"
    say(f"{verdict} after {fmt_s(res['seconds'])}; wrote {os.path.join(outdir, MARKDOWN)} and {JSON}")
    return 0 if res["ok"] else 1


def main(outdir: str, command: str) -> int:
    """The command: :func:`run_check` on CuPy where a CUDA device is usable, else one line and 0."""
    from gpu_rs.cli.doctor import cupy_status

    cupy, status = cupy_status()
    if cupy is None:
        print(f"gpu-check: no usable GPU here (CuPy: {status}); nothing to check, nothing written")
        return 0
    return run_check(outdir, "cupy", command=command)
