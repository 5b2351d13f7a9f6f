"""The ``gpu-rs`` command line (SPEC §3): exit codes, one-line errors, JSON, files."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

import gpu_rs
from gpu_rs.cli.main import build_parser, main
from gpu_rs.cli.progress import Progress
from gpu_rs.common.backend import resolve_backend

N, BITS, Q, EPS = 1000, 5, 0.2446, math.log(2)
PROBLEM = ["--n", str(N), "--bits", str(BITS)]
TAIL = ["tail", *PROBLEM, "--q", str(Q), "--eps", repr(EPS)]
PMF = ["pmf", *PROBLEM, "--q", str(Q)]
CALIBRATE = ["calibrate", *PROBLEM, "--eps", repr(EPS), "--eta", "0.02", "--q-tol", "1e-4", "--scope", "homogeneous"]
ROOT = Path(__file__).resolve().parents[1]

# An accepted range in a message: an interval like (0, 0.5) or [1, 1024], or a bound like "> 0".
RANGE = re.compile(r"[\[(][^\])]*,[^\])]*[\])]|[<>]=?\s*-?\d")


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def error_line(err: str) -> str:
    """The single stderr line of a failed run, with no traceback."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("gpu-rs: error: "), err
    return lines[0]


# ------------------------------------------------------------------ bad input


BAD_INPUT = [
    # (argv, a regex naming the argument, whether the message must show a range)
    pytest.param(["tail", *PROBLEM, "--q", "0.7", "--eps", "0.69"], r"\bq\b", True, id="q-0.7"),
    pytest.param(["tail", *PROBLEM, "--q", "0", "--eps", "0.69"], r"\bq\b", True, id="q-0"),
    pytest.param(["tail", "--n", "1000", "--bits", "0", "--q", "0.2", "--eps", "0.69"], r"\bbits\b", True, id="bits-0"),
    pytest.param(["tail", "--n", "-5", "--bits", "5", "--q", "0.2", "--eps", "0.69"], r"\bn\b", True, id="n-negative"),
    pytest.param(
        ["tail", "--n", "12.5", "--bits", "5", "--q", "0.2", "--eps", "0.69"], r"--n\b", True, id="n-fraction"
    ),
    pytest.param(["tail", "--n", "many", "--bits", "5", "--q", "0.2", "--eps", "0.69"], r"--n\b", True, id="n-text"),
    pytest.param(["tail", *PROBLEM, "--q", "0.2", "--eps", "-1"], r"\beps\b", True, id="eps-negative"),
    pytest.param(["tail", *PROBLEM, "--q", "0.2", "--ratio", "0.5"], r"\bratio\b", True, id="ratio-below-1"),
    pytest.param(
        ["tail", *PROBLEM, "--q", "0.2", "--eps", "0.69", "--ratio", "2"],
        r"--eps.*--ratio|--ratio.*--eps",
        False,
        id="eps-and-ratio",
    ),
    pytest.param(["tail", *PROBLEM, "--q", "0.2"], r"--eps.*--ratio", False, id="no-eps"),
    pytest.param(["calibrate", *PROBLEM, "--eps", "0.69", "--eta", "1.5"], r"\beta\b", True, id="eta-1.5"),
    pytest.param(["calibrate", *PROBLEM, "--eps", "0.69", "--eta", "0"], r"\beta\b", True, id="eta-0"),
    pytest.param(["calibrate", *PROBLEM, "--eps", "0.69"], r"--eta", False, id="no-eta"),
    pytest.param([*TAIL, "--backend", "gpu"], r"--backend", False, id="backend-unknown"),
    pytest.param(["pmf", *PROBLEM, "--q", "0.6"], r"\bq\b", True, id="pmf-q"),
    pytest.param([], r"tail,calibrate,pmf,profile,table,doctor", False, id="no-command"),
]


@pytest.mark.parametrize(("argv", "names", "has_range"), BAD_INPUT)
def test_bad_input_exits_2_with_one_line(capsys, argv, names, has_range):
    code, out, err = run(capsys, argv)
    assert code == 2
    assert out == ""
    line = error_line(err)
    assert re.search(names, line), line
    if has_range:
        assert RANGE.search(line), line


def test_bad_input_from_python_m(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_rs", "tail", *PROBLEM, "--q", "0.7", "--eps", "0.69"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert re.search(r"\bq\b", error_line(proc.stderr))
    assert "Traceback" not in proc.stderr


def test_help_exits_0(capsys):
    commands = ("tail", "calibrate", "pmf", "doctor")
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(command in out for command in commands)
    for command in commands:
        assert main([command, "--help"]) == 0
        assert f"gpu-rs {command}" in capsys.readouterr().out


def test_parser_has_the_spec_commands():
    parser = build_parser()
    args = parser.parse_args(["tail", "--n", "1e7", "--bits", "40", "--q", "0.1", "--ratio", "2"])
    assert (args.command, args.n, args.bits, args.q, args.eps, args.ratio) == ("tail", 10**7, 40, 0.1, None, 2.0)
    assert args.backend == "auto"
    args = parser.parse_args(
        ["calibrate", "--n", "10", "--bits", "2", "--eps", "2", "--eta", "1e-3", "--q-tol", "1e-5", "--quiet", "--json"]
    )
    assert (args.eta, args.q_tol, args.quiet, args.json) == (1e-3, 1e-5, True, True)
    args = parser.parse_args(["pmf", "--n", "10", "--bits", "2", "--q", "0.1", "--csv", "x.csv"])
    assert (args.csv, args.plot, args.eps) == ("x.csv", None, None)


# ------------------------------------------------------------------ tail


def test_tail_json_matches_the_api(capsys):
    code, out, _err = run(capsys, [*TAIL, "--json"])
    assert code == 0
    got = json.loads(out)
    want = gpu_rs.tail(N, BITS, Q, EPS).to_dict()
    assert set(got) == {"schema", *want}
    for key in ("n", "bits", "q", "eps", "inclusive", "met", "method", "backend"):
        assert got[key] == want[key], key
    for key in ("lower", "estimate", "upper"):
        assert got[key] == pytest.approx(want[key], rel=1e-9), key
    assert got["lower"] <= got["estimate"] <= got["upper"]
    assert got["backend"] == resolve_backend("auto")


def test_tail_ratio_is_eps(capsys):
    _, by_eps, _ = run(capsys, [*TAIL, "--json"])
    _, by_ratio, _ = run(capsys, ["tail", *PROBLEM, "--q", str(Q), "--ratio", "2", "--json"])
    a, b = json.loads(by_eps), json.loads(by_ratio)
    assert b["eps"] == pytest.approx(EPS, rel=1e-15)
    for key in ("lower", "estimate", "upper"):
        assert a[key] == pytest.approx(b[key], rel=1e-9), key


def test_tail_human_output(capsys):
    code, out, err = run(capsys, TAIL)
    assert code == 0
    b = gpu_rs.tail(N, BITS, Q, EPS)
    assert "P[R > 2]" in out
    assert f"{b.lower:.6e}" in out and f"{b.upper:.6e}" in out
    assert "Traceback" not in err


def test_tail_inclusive(capsys):
    code, out, _ = run(capsys, [*TAIL, "--inclusive", "--json"])
    assert code == 0
    assert json.loads(out)["inclusive"] is True


def test_tail_json_from_python_m(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_rs", *TAIL, "--json"], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["lower"] <= got["upper"]
    assert (got["n"], got["bits"]) == (N, BITS)


# ------------------------------------------------------------------ calibrate


def test_calibrate_json_matches_the_api(capsys):
    code, out, err = run(capsys, [*CALIBRATE, "--json", "--quiet"])
    assert code == 0
    assert err == ""
    got = json.loads(out)
    c = gpu_rs.calibrate(N, BITS, EPS, 0.02, q_tol=1e-4, scope="homogeneous")
    want = c.to_dict()
    assert set(got) == {"schema", *want}
    assert got["q"] == pytest.approx(c.q, rel=1e-12)
    assert got["at_q"]["upper"] <= 0.02
    assert set(got["at_q"]) == set(c.at_q.to_dict())


def test_calibrate_prints_steps_and_a_table(capsys):
    code, out, err = run(capsys, CALIBRATE)
    assert code == 0
    steps = [line for line in err.splitlines() if "query" in line]
    assert steps, err
    assert all(re.search(r"q=0\.\d+ .*\[.*,.*\]", line) for line in steps)
    assert "3-sigma" in out and "local DP" in out and "calibrated" in out
    assert "sigma(d^)" in out


def test_calibrate_says_which_side_of_a_relative_tolerance(capsys):
    """Issue 33 items 7, 8: n = 1e6, L = 1, eps = 2, eta = 1e-3 (a row of the README's table grid)
    answered q = 1e-5 "to within 1e-06" although q = 6.92e-6 certifies; the answer is printed with
    its relative tolerance and the point below it that does not certify, in significant digits."""
    argv = ["calibrate", "--n", "1e6", "--bits", "1", "--eps", "2", "--eta", "1e-3", "--scope", "homogeneous"]
    code, out, _ = run(capsys, [*argv, "--quiet"])
    assert code == 0
    line = re.search(
        r"^q = (\S+)  \(to within (\S+) = 1e-05 x min\(q, 1/2 - q\): q - (\S+) does not certify\)", out, re.M
    )
    assert line, out
    q, tol = float(line[1]), float(line[2])
    assert q < 6.92e-6 and tol == pytest.approx(1e-5 * q, rel=1e-2) and line[3] == line[2]
    assert re.search(r"^  calibrated +6\.9\d+e-06 ", out, re.M), out


def test_calibrate_ratio_is_eps(capsys):
    _, a, _ = run(capsys, [*CALIBRATE, "--json", "--quiet"])
    argv = ["calibrate", *PROBLEM, "--ratio", "2", "--eta", "0.02", "--q-tol", "1e-4", "--scope", "homogeneous"]
    _, b, _ = run(capsys, [*argv, "--json", "--quiet"])
    assert json.loads(a)["q"] == pytest.approx(json.loads(b)["q"], rel=1e-12)


# ------------------------------------------------------------------ pmf


def read_csv_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def test_pmf_csv_matches_the_api_and_the_help(capsys, tmp_path):
    path = tmp_path / "pmf.csv"
    code, out, err = run(capsys, [*PMF, "--buckets", "12", "--csv", str(path)])
    assert code == 0, err
    columns, rows = read_csv_rows(path)
    _, help_text, _ = run(capsys, ["pmf", "--help"])
    documented = re.search(r"names the columns ([a-z_, ]+?):", " ".join(help_text.split()))
    assert documented is not None and documented.group(1).split(", ") == columns
    d = gpu_rs.ratio_distribution(N, BITS, Q, buckets=12)
    assert [r["kind"] for r in rows] == ["below"] + ["bucket"] * len(d.probs) + ["above"]
    buckets = [r for r in rows if r["kind"] == "bucket"]
    assert [float(r["r_left"]) for r in buckets] == pytest.approx(list(map(float, d.values)), rel=1e-12)
    probs = [float(r["prob"]) for r in rows]
    assert math.fsum(probs) == pytest.approx(1.0, abs=1e-12)  # estimates of buckets and outside telescope to 1
    assert math.fsum(float(r["prob_lower"]) for r in rows) <= 1.0 <= math.fsum(float(r["prob_upper"]) for r in rows)
    mean, _ = gpu_rs.moments(N, BITS, Q)
    lo = math.fsum(float(r["r_left"]) * float(r["prob_lower"]) for r in buckets)
    hi = math.fsum(float(r["r_right"]) * float(r["prob_upper"]) for r in buckets)
    assert lo <= mean <= hi + float(rows[-1]["prob_upper"]) * 1e6
    assert str(path) in out
    assert "total mass  buckets + below + above in [" in out


def test_pmf_flags(capsys):
    code, out, err = run(capsys, [*PMF, "--buckets", "12", "--range", "0.5:3", "--log", "--scope", "forward"])
    assert code == 0, err
    assert "12 over (0.5, 3], logarithmic" in out
    code, _, err = run(capsys, [*PMF, "--scope", "all"])
    assert code == 2 and err.count("\n") == 1 and "--scope must be 'forward'" in err
    code, _, err = run(capsys, [*PMF, "--log"])
    assert code == 2 and err.count("\n") == 1 and "--log needs --range" in err
    code, _, err = run(capsys, [*PMF, "--range", "3:1"])
    assert code == 2 and "--range must be A:B" in err
    start = time.perf_counter()
    code, _, err = run(capsys, ["pmf", "--n", "1e7", "--bits", "64", "--q", "0.3", "--buckets", "16000000"])
    assert code == 2 and err.count("\n") == 1 and "buckets must be at most" in err
    assert time.perf_counter() - start < 5.0  # refused before any work


def test_pmf_threshold_and_json(capsys):
    code, out, _ = run(capsys, [*PMF, "--buckets", "6", "--ratio", "2"])
    assert code == 0
    assert "P[R > 2]" in out
    code, out, _ = run(capsys, [*PMF, "--buckets", "6", "--json"])
    assert code == 0
    got = json.loads(out)
    assert set(got) == {"schema", *gpu_rs.ratio_distribution(N, BITS, Q, buckets=6).to_dict()}


def test_pmf_plot_writes_a_png(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "pmf.png"
    code, _, err = run(capsys, [*PMF, "--buckets", "8", "--plot", str(path)])
    assert code == 0, err
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_pmf_output_directory_must_exist(capsys, tmp_path):
    code, _, err = run(capsys, [*PMF, "--csv", str(tmp_path / "missing" / "pmf.csv")])
    assert code == 2
    assert "--csv" in error_line(err)


# ------------------------------------------------------------------ doctor


def _gpu_usable() -> bool:
    try:
        import cupy

        return bool(cupy.is_available())
    except Exception:
        return False


def test_doctor(capsys):
    code, out, err = run(capsys, ["doctor"])
    assert code == 0, out + err
    assert "numpy" in out and "scipy" in out and "cupy" in out
    assert "'auto' resolves to" in out
    if not _gpu_usable():
        assert "no GPU" in out
        assert "parity check: skipped" in out
    else:
        assert "intervals overlap" in out


# ------------------------------------------------------------------ progress and CI


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_ticker_only_on_a_terminal():
    tty = _Terminal()
    with Progress("working", quiet=False, stream=tty, delay=0.0, period=0.01) as p:
        time.sleep(0.05)
        p.line("step 1")
    assert "gpu-rs: working ..." in tty.getvalue()
    assert "step 1\n" in tty.getvalue()
    assert tty.getvalue().endswith("\r\033[K") or tty.getvalue().endswith("step 1\n")

    plain = io.StringIO()
    with Progress("working", quiet=False, stream=plain, delay=0.0, period=0.01) as p:
        time.sleep(0.05)
        p.line("step 1")
    assert plain.getvalue() == "step 1\n"

    quiet = _Terminal()
    with Progress("working", quiet=True, stream=quiet, delay=0.0, period=0.01) as p:
        time.sleep(0.05)
        p.line("step 1")
    assert quiet.getvalue() == ""


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert ".venv/bin/pip install -e '.[test,plot,accounting,dask]' && .venv/bin/python -m pytest -q" in readme
    assert "install --quiet -e '.[test,plot,accounting,dask]'" in ci
    assert '/bin/python" -m pytest -q' in ci


def test_profile_eps_of_delta_csv_holds_its_evidence(capsys, tmp_path):
    """Issue 33 item 11: ``profile --delta D --csv F`` printed ``wrote F`` and wrote nothing. F now holds
    delta(eps) at both ends of the eps(D) interval, each bracketing the exact delta (reference module)."""
    from gpu_rs.reference.profile_exact import delta_one_bit

    path = tmp_path / "p.csv"
    argv = ["profile", "--n", "1000", "--bits", "1", "--q", "0.25", "--scope", "homogeneous", "--delta", "1e-6"]
    code, out, _ = run(capsys, [*argv, "--csv", str(path), "--json", "--quiet"])
    assert code == 0
    found = json.loads(out)
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [float(r["eps"]) for r in rows] == [found["lower"], found["upper"]]
    assert float(rows[0]["lower"]) > 1e-6 >= float(rows[1]["upper"])  # delta(lower) > D >= delta(upper)
    for r in rows:
        exact = [delta_one_bit(1000, 0.25, float(r["eps"]), forward) for forward in (True, False)]
        assert float(r["lower"]) <= max(hi for _, hi in exact) and max(lo for lo, _ in exact) <= float(r["upper"])


JSON_COMMANDS = [
    pytest.param([*TAIL, "--scope", "homogeneous"], True, id="tail"),
    pytest.param(CALIBRATE, True, id="calibrate-eta"),
    pytest.param(
        shlex.split("calibrate --n 1000 --bits 1 --eps 0.5 --delta 1e-6 --q-tol 1e-3 --scope homogeneous"),
        True,
        id="calibrate-delta",
    ),
    pytest.param([*PMF, "--buckets", "6"], True, id="pmf"),
    pytest.param(["profile", "--n", "1000", "--bits", "1", "--q", "0.25", "--eps", "0.5"], True, id="profile"),
    pytest.param(["doctor"], False, id="doctor"),
]


@pytest.mark.parametrize(("argv", "has_provenance"), JSON_COMMANDS)
def test_every_json_output_has_the_schema_version_and_provenance(capsys, argv, has_provenance):
    """Issue 33 (schemas): every command's JSON object starts with ``"schema": 1`` (docs/json-schema.md)
    and carries the provenance of its numbers; both calibrations name their bound ``at_q``."""
    from gpu_rs.common.provenance import package_version

    code, out, err = run(capsys, [*argv, "--json", *(["--quiet"] if argv[0] != "doctor" else [])])
    assert code == 0, err
    got = json.loads(out)
    assert next(iter(got)) == "schema" and got["schema"] == 1
    if has_provenance:
        assert got["provenance"]["gpu_rs"] == package_version("gpu-rs")
        assert got["provenance"]["backend"] == got["backend"]
    if argv[0] == "calibrate":
        assert "tail" not in got and got["at_q"]["upper"] <= float(
            argv[argv.index("--eta" if "--eta" in argv else "--delta") + 1]
        )


def test_profile_says_when_unmet_and_max_queries_refines(capsys):
    """At L = 64 the profile's fast interval can be [0, 0.92]: the command says so and how to refine it, and
    --max-queries refines it; both intervals hold the tail-bracketed δ of the refined run."""
    argv = ["profile", "--n", "1e7", "--bits", "64", "--q", "0.38", "--eps", "0.5", "--scope", "forward"]
    argv += ["--backend", "numpy", "--quiet", "--json"]
    code, out, err = run(capsys, argv)
    fast = json.loads(out)
    assert code == 0 and not fast["met"] and "--max-queries K refines" in err
    code, out, err = run(capsys, [*argv, "--max-queries", "4"])
    refined = json.loads(out)
    assert code == 0 and refined["met"] and "--max-queries" not in err
    assert fast["lower"] <= refined["lower"] <= refined["upper"] <= fast["upper"]
    assert refined["upper"] - refined["lower"] <= 1e-3 * refined["lower"]
