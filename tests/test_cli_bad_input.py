"""Bad input to every ``gpu-rs`` subcommand: exit 2, one line ``gpu-rs: error: ...`` naming the argument.

Each case runs ``main(argv)`` in process and must be refused before any computation (the
whole list runs in seconds). The last tests start the program as a subprocess: the
environment's ``GPU_RS_BACKEND``, and ``--version`` / ``--help`` without SciPy or the engine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from gpu_rs.cli.main import main

TAIL = ["tail", "--n", "100", "--bits", "2", "--q", "0.2", "--eps", "1"]
CAL = ["calibrate", "--n", "100", "--bits", "2", "--eps", "1", "--eta", "1e-3"]
PMF = ["pmf", "--n", "100", "--bits", "2", "--q", "0.2"]
PROF = ["profile", "--n", "100", "--bits", "1", "--q", "0.2", "--eps", "1"]


def without(argv: list[str], option: str) -> list[str]:
    i = argv.index(option)
    return argv[:i] + argv[i + 2 :]


def replace(argv: list[str], option: str, value: str) -> list[str]:
    i = argv.index(option)
    return [*argv[: i + 1], value, *argv[i + 2 :]]


# (argv, text the error line must contain: the argument's name, and where it has one, its range)
CASES: list[tuple[list[str], str]] = [
    # --n and --bits, every subcommand that takes them
    (replace(TAIL, "--n", "0"), "--n must be an integer in [1, 1000000000]"),
    (replace(TAIL, "--n", "-5"), "--n must be an integer in [1, 1000000000]"),
    (replace(TAIL, "--n", "1e10"), "--n must be an integer in [1, 1000000000]"),
    (replace(TAIL, "--n", "1e400"), "--n must be an integer"),
    (replace(TAIL, "--n", "10.5"), "--n must be an integer"),
    (replace(TAIL, "--n", "abc"), "--n must be an integer"),
    (replace(TAIL, "--n", "nan"), "--n must be an integer"),
    (replace(TAIL, "--bits", "0"), "--bits must be an integer in [1, 1024]"),
    (replace(TAIL, "--bits", "1025"), "--bits must be an integer in [1, 1024]"),
    (replace(CAL, "--n", "0"), "--n must be an integer in [1, 1000000000]"),
    (replace(CAL, "--bits", "2.5"), "--bits must be an integer"),
    (replace(PMF, "--n", "-1"), "--n must be an integer"),
    (replace(PMF, "--bits", "x"), "--bits must be an integer"),
    (replace(PROF, "--n", "2e9"), "--n must be an integer in [1, 1000000000]"),
    (replace(PROF, "--bits", "-inf"), "--bits must be an integer"),
    (without(TAIL, "--n"), "--n"),
    (without(CAL, "--bits"), "--bits"),
    # --q
    (replace(TAIL, "--q", "0.5"), "--q must be a number in (0, 0.5)"),
    (replace(TAIL, "--q", "0"), "--q must be a number in (0, 0.5)"),
    (replace(TAIL, "--q", "-0.1"), "--q must be a number in (0, 0.5)"),
    (replace(TAIL, "--q", "nan"), "--q must be a number in (0, 0.5)"),
    (replace(TAIL, "--q", "inf"), "--q must be a number in (0, 0.5)"),
    (replace(TAIL, "--q", "one"), "--q must be a number in (0, 0.5)"),
    (replace(PMF, "--q", "0.7"), "--q must be a number in (0, 0.5)"),
    (replace(PROF, "--q", "1e-400"), "--q must be a number in (0, 0.5)"),
    (without(TAIL, "--q"), "--q"),
    ([*CAL, "--q", "0.2"], "calibrate takes no option --q: calibrate searches for q"),
    ([*CAL, "--q=0.2"], "calibrate takes no option --q"),
    # --eps and --ratio: negative, beyond a double, below what e^eps can show
    (replace(TAIL, "--eps", "-inf"), "--eps must be a number in [2.22045e-16, 700)"),
    (replace(TAIL, "--eps", "-1"), "--eps must be a number in [2.22045e-16, 700)"),
    (replace(TAIL, "--eps", "0"), "--eps must be a number in [2.22045e-16, 700)"),
    (replace(TAIL, "--eps", "1e-300"), "--eps must be a number in [2.22045e-16, 700)"),
    (replace(TAIL, "--eps", "700"), "--eps must be a number in [2.22045e-16, 700)"),
    (replace(TAIL, "--eps", "1e400"), "--eps must be a number in [2.22045e-16, 700)"),
    (replace(TAIL, "--eps", "nan"), "--eps must be a number"),
    ([*without(TAIL, "--eps"), "--ratio", "1"], "--ratio must be a number in (1, "),
    ([*without(TAIL, "--eps"), "--ratio", "0.5"], "--ratio must be a number in (1, "),
    ([*without(TAIL, "--eps"), "--ratio", "1e305"], "--ratio must be a number in (1, "),
    ([*without(TAIL, "--eps"), "--ratio", "1e400"], "--ratio must be a number in (1, "),
    ([*without(TAIL, "--eps"), "--ratio", "-2"], "--ratio must be a number in (1, "),
    ([*TAIL, "--ratio", "2"], "--ratio"),
    (without(TAIL, "--eps"), "--eps"),
    (replace(CAL, "--eps", "-1e-6"), "--eps must be a number in [2.22045e-16, 700)"),
    (replace([*PMF, "--eps", "1"], "--eps", "-3"), "--eps must be a number"),
    (replace(PROF, "--eps", "1e-17"), "--eps must be a number in [2.22045e-16, 700)"),
    # tail's widths
    ([*TAIL, "--rel-width", "0"], "--rel-width must be a number in [1e-09, 1)"),
    ([*TAIL, "--rel-width", "1e-15"], "--rel-width must be a number in [1e-09, 1)"),
    ([*TAIL, "--rel-width", "1"], "--rel-width must be a number in [1e-09, 1)"),
    ([*TAIL, "--abs-width", "-1e-6"], "--abs-width must be a number in [0, 1)"),
    ([*TAIL, "--abs-width", "2"], "--abs-width must be a number in [0, 1)"),
    ([*TAIL, "--inclusive=yes"], "--inclusive"),
    ([*TAIL, "--k", "0"], "--k must be an integer in [1, 1000]"),
    ([*TAIL, "--k", "1001"], "--k must be an integer in [1, 1000]"),
    ([*TAIL, "--scope", "every"], "--scope"),
    ([*PROF, "--max-queries", "-1"], "--max-queries must be an integer in [0, 100000]"),
    ([*PROF, "--max-queries", "1e6"], "--max-queries must be an integer in [0, 100000]"),
    ([*PROF, "--max-queries", "2.5"], "--max-queries must be an integer"),
    ([*TAIL, "--search-seconds", "-1"], "--search-seconds must be a number in [0, 86400)"),
    ([*TAIL, "--search-seconds", "86400"], "--search-seconds must be a number in [0, 86400)"),
    ([*CAL, "--search-seconds", "-1"], "--search-seconds must be a number in [0, 86400)"),
    ([*CAL, "--max-seconds", "0"], "--max-seconds must be a number in (0, inf)"),
    ([*without(CAL, "--eta"), "--delta", "1e-3", "--search-seconds", "60"], "search_seconds applies to eta"),
    ([*TAIL, "--search-seconds", "nan"], "--search-seconds must be a number in [0, 86400)"),
    ([*TAIL, "--search-seconds", "soon"], "--search-seconds must be a number"),
    ([*TAIL, "--backend", "gpu"], "--backend"),
    ([*TAIL, "--rel", "1e-3"], "tail takes no option --rel"),
    ([*TAIL, "extra"], "tail takes no argument 'extra'"),
    # calibrate's targets and tolerances
    (replace(CAL, "--eta", "1e-300"), "--eta must be a number in [1e-30, 1)"),
    (replace(CAL, "--eta", "0"), "--eta must be a number in [1e-30, 1)"),
    (replace(CAL, "--eta", "1"), "--eta must be a number in [1e-30, 1)"),
    (replace(CAL, "--eta", "-1e-3"), "--eta must be a number in [1e-30, 1)"),
    ([*without(CAL, "--eta"), "--delta", "-1e-6"], "--delta must be a number in [1e-30, 1)"),
    ([*without(CAL, "--eta"), "--delta", "1.5"], "--delta must be a number in [1e-30, 1)"),
    (without(CAL, "--eta"), "--eta --delta"),
    ([*CAL, "--delta", "1e-6"], "--delta"),
    ([*CAL, "--q-tol", "1e-20"], "--q-tol must be a number in [1e-12, 0.01)"),
    ([*CAL, "--q-tol", "0.1"], "--q-tol must be a number in [1e-12, 0.01)"),
    ([*CAL, "--q-tol", "-1"], "--q-tol must be a number in [1e-12, 0.01)"),
    ([*CAL, "--rel-width", "1e-15"], "--rel-width must be a number in [1e-09, 1)"),
    ([*CAL, "--k", "-1"], "--k must be an integer in [1, 1000]"),
    ([*CAL, "--scope", "none"], "--scope"),
    # pmf's output files, checked before the computation
    ([*PMF, "--plot", "."], "--plot must be a writable file: '.' is a folder"),
    ([*PMF, "--plot", "figure.txt"], "--plot must be a writable file: 'figure.txt' must end in one of .png"),
    ([*PMF, "--plot", "figure"], "--plot must be a writable file"),
    ([*PMF, "--plot", "/no/such/folder/f.png"], "--plot must be a writable file: folder '/no/such/folder'"),
    ([*PMF, "--csv", "."], "--csv must be a writable file: '.' is a folder"),
    ([*PMF, "--csv", "/no/such/folder/f.csv"], "--csv must be a writable file: folder '/no/such/folder'"),
    ([*PMF, "--csv", "/proc/gpu_rs.csv"], "--csv must be a writable file"),
    ([*PMF, "--scope", "all"], "--scope must be 'forward' for pmf"),
    ([*PMF, "--buckets", "1"], "--buckets must be an integer in [2, 16777216]"),
    ([*PMF, "--range", "2"], "--range must be A:B"),
    ([*PMF, "--ratio", "1"], "--ratio must be a number in (1, "),
    # profile
    ([*PROF, "--k", "2", "--scope", "homogeneous"], "scope must be 'all' for privacy_profile with k=2"),
    ([*PROF, "--k", "0"], "--k must be an integer in [1, 1000]"),
    ([*PROF, "--delta", "1e-6"], "give exactly one of --eps/--ratio"),
    (without(PROF, "--eps"), "give exactly one of --eps/--ratio"),
    ([*without(PROF, "--eps"), "--delta", "0"], "--delta must be a number in [1e-30, 1)"),
    ([*without(PROF, "--eps"), "--delta", "1e-300"], "--delta must be a number in [1e-30, 1)"),
    ([*PROF, "--rel-width", "1e-12"], "--rel-width must be a number in [1e-09, 1)"),
    # table (its lists use the same checks)
    (
        ["table", "--n", "100,0", "--bits", "2", "--eps", "1", "--eta", "1e-3", "--out", "t.csv"],
        "--n must be an integer",
    ),
    (
        ["table", "--n", "100", "--bits", "2", "--eps", "1,-1", "--eta", "1e-3", "--out", "t.csv"],
        "--eps must be a number",
    ),
    (
        ["table", "--n", "100", "--bits", "2", "--eps", "1", "--eta", "1e-300", "--out", "t.csv"],
        "--eta must be a number",
    ),
    (
        ["table", "--n", "100", "--bits", "2", "--eps", "1", "--eta", "1e-3", "--out", "t.txt"],
        "--out must be a writable",
    ),
    (["table", "--n", "100", "--bits", "2", "--eps", "1", "--eta", "1e-3", "--out", "."], "--out must be a writable"),
    # the program and doctor
    ([], "the following arguments are required"),
    (["solve"], "invalid choice: 'solve'"),
    (["doctor", "--verbose"], "doctor takes no option --verbose"),
    (["--versio"], "--versio"),
]


def test_enough_cases():
    assert len(CASES) >= 60
    assert {argv[0] for argv, _ in CASES if argv} >= {"tail", "calibrate", "pmf", "profile", "doctor"}


@pytest.mark.parametrize(("argv", "named"), CASES, ids=[" ".join(a) or "(none)" for a, _ in CASES])
def test_bad_input(capsys, argv, named):
    start = time.perf_counter()
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err)
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("gpu-rs: error: "), err
    assert "Traceback" not in err
    assert named in err, err
    assert time.perf_counter() - start < 5.0  # refused before any computation


def test_no_file_written_before_refusal(capsys, tmp_path):
    """A refused --plot leaves nothing behind, and a good --csv beside it is not written either."""
    csv = tmp_path / "d.csv"
    assert main([*PMF, "--csv", str(csv), "--plot", str(tmp_path)]) == 2
    assert not csv.exists() and list(tmp_path.iterdir()) == []
    capsys.readouterr()


def test_help_names_each_range(capsys):
    for command in ("tail", "calibrate", "pmf", "profile", "doctor"):
        assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    for text in ("1 <= N <= 1000000000", "0 < Q < 1/2", "1e-30 <= ETA < 1", "1e-12 <= TOL < 0.01", "header row"):
        assert text in " ".join(out.split()), text


def run_program(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpu_rs", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )


def test_backend_from_the_environment():
    pytest.importorskip("numpy")
    try:
        import cupy  # noqa: F401

        pytest.skip("CuPy is importable here")
    except ImportError:
        pass
    done = run_program(TAIL, GPU_RS_BACKEND="cupy")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "GPU_RS_BACKEND='cupy'" in done.stderr, done.stderr
    assert "from the environment" in done.stderr


def test_version_and_help_import_neither_scipy_nor_the_engine():
    code = (
        "import sys\n"
        "from gpu_rs.cli.main import main\n"
        "for argv in (['--version'], ['--help'], ['tail', '--help']):\n"
        "    assert main(argv) == 0\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] == 'scipy' or m.startswith(('gpu_rs.engine', "
        "'gpu_rs.pairs', 'gpu_rs.quantities', 'gpu_rs.calibration')) or m == 'numpy')\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stderr, done.stderr


def test_doctor_json(capsys):
    import json

    code = main(["doctor", "--json"])
    out = capsys.readouterr().out
    report = json.loads(out)
    assert code == (0 if report["ok"] else 1)
    assert {"gpu_rs", "numpy", "scipy", "cupy", "backends", "auto", "parity"} <= set(report)
    assert report["auto"] in report["backends"]


def test_q_next_to_one_half_is_shown_as_given(capsys):
    from gpu_rs.cli.arguments import short

    assert short(0.4999999999999999) == "0.4999999999999999"
    assert short(0.2446) == "0.2446" and short(1e-320) == "9.99989e-321"
    assert main(["tail", "--n", "100", "--bits", "2", "--q", "0.4999999999999999", "--eps", "1"]) == 0
    out = capsys.readouterr().out
    assert "q=0.4999999999999999" in out and "relative inf" not in out
