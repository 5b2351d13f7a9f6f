"""``gpu_rs.table`` and ``gpu-rs table`` (issue 22): rows agree with ``calibrate``, nothing is lost.

Small L = 1 settings keep each calibration well under a second.
"""

from __future__ import annotations

import csv
import json
import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

import gpu_rs
from gpu_rs.calibration.table_file import KEY, read_rows, row_key
from gpu_rs.cli.main import main

GRID = {"n": [1000, 3000], "bits": [1], "eps": [1.0], "eta": [1e-2], "q_tol": 1e-4}


def _agree(rows):
    """Every row without an error is the calibration of its setting, exactly."""
    for r in rows:
        if r["error"]:
            continue
        c = gpu_rs.calibrate(r["n"], r["bits"], r["eps"], r["eta"], scope=r["scope"], k=r["k"], q_tol=r["q_tol"])
        assert (r["q"], r["lower"], r["upper"]) == (c.q, c.tail.lower, c.tail.upper), r


def _keys(path):
    return [row_key(r) for r in read_rows(path)]


def test_table_agrees_with_calibrate_and_records_errors(tmp_path):
    out = str(tmp_path / "t.jsonl")
    t = gpu_rs.table(**{**GRID, "eta": [1e-2, 2.0]}, out=out, executor=ThreadPoolExecutor(2))
    assert len(t.rows) == 4 and t.computed == 4 and t.reused == 0
    bad = [r for r in t.rows if r["eta"] == 2.0]
    assert all("eta must be a number in [1e-30, 1)" in r["error"] and r["q"] is None for r in bad)
    _agree(t.rows)
    assert sorted(_keys(out)) == sorted(row_key(r) for r in t.rows)  # the file holds the same rows
    again = gpu_rs.table(**{**GRID, "eta": [1e-2, 2.0]}, out=out)
    assert (again.computed, again.reused) == (0, 4) and again.rows == t.rows


def test_local_processes_and_the_plan(tmp_path):
    out = str(tmp_path / "t.csv")
    plans = []
    t = gpu_rs.table(**GRID, out=out, workers=2, on_plan=plans.append)
    assert plans[0].rows == 2 and plans[0].done == 0 and plans[0].seconds >= 0 and plans[0].bytes > 0
    _agree(t.rows)
    with open(out, newline="") as f:
        assert [tuple(r[c] for c in KEY[:2]) for r in csv.DictReader(f)]  # a plain CSV with a header


def test_killed_worker_loses_and_duplicates_nothing(tmp_path):
    """A worker killed mid-table: the run stops, the file keeps whole rows; a rerun completes it."""
    out = str(tmp_path / "t.csv")
    grid = {**GRID, "n": [1000, 2000, 3000, 4000], "eps": [1.0, 2.0]}
    pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"))

    def kill_one(done, total, row):
        if done == 1:
            os.kill(next(iter(pool._processes)), signal.SIGKILL)

    try:
        with pytest.raises(RuntimeError, match="worker process died"):
            gpu_rs.table(**grid, out=out, executor=pool, progress=kill_one)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    first = _keys(out)
    assert 1 <= len(first) < 8 and len(set(first)) == len(first)
    t = gpu_rs.table(**grid, out=out, workers=2)
    assert t.reused == len(first) and t.computed == 8 - len(first)
    keys = _keys(out)
    assert len(keys) == 8 == len(set(keys))
    _agree(read_rows(out))


def test_incomplete_last_line_is_dropped(tmp_path):
    out = str(tmp_path / "t.csv")
    gpu_rs.table(n=1000, bits=1, eps=1.0, eta=1e-2, q_tol=1e-4, out=out, executor=ThreadPoolExecutor(1))
    with open(out, "a") as f:
        f.write("3000,1,1.0,0.01,,1,homogeneous,,0.01")  # a process killed mid-write
    t = gpu_rs.table(n=[1000, 3000], bits=1, eps=1.0, eta=1e-2, q_tol=1e-4, out=out, executor=ThreadPoolExecutor(1))
    assert (t.reused, t.computed) == (1, 1)
    assert len(_keys(out)) == 2
    _agree(read_rows(out))


def test_dask_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed", reason="the optional extra 'dask' is not installed")
    out = str(tmp_path / "t.jsonl")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        t = gpu_rs.table(**GRID, out=out, executor=client.get_executor())
    assert t.computed == 2
    _agree(t.rows)
    with open(out) as f:
        assert len([json.loads(line) for line in f]) == 2


def test_cli_table(tmp_path, capsys):
    out = str(tmp_path / "t.csv")
    argv = [
        "table",
        "--n",
        "1e3,3e3",
        "--bits",
        "1",
        "--ratio",
        "2",
        "--eta",
        "1e-2",
        "--q-tol",
        "1e-4",
        "--out",
        out,
        "--workers",
        "1",
    ]
    assert main([*argv, "--markdown", str(tmp_path / "t.md")]) == 0
    assert "2 rows (2 computed now, 0 already there), 0 with an error" in capsys.readouterr().out
    assert (tmp_path / "t.md").read_text().startswith("| n | bits | eps |")
    _agree(read_rows(out))
    assert main(argv) == 0
    assert "(0 computed now, 2 already there)" in capsys.readouterr().out
    assert main([*argv[:-4], "--out", str(tmp_path / "t.txt")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("gpu-rs: error: --out must be a writable file") and ".csv" in err and "\n" not in err


def _sleepy_row(setting, options):
    """A row task for the pool test: sleeps ``setting["sleep"]`` seconds (runs in a spawned worker)."""
    import time as _time

    _time.sleep(setting["sleep"])
    return {**setting, "error": None}


def test_interrupt_terminates_running_rows(tmp_path):
    """Ctrl-C in the main process (here: raised from the progress callback after the first row)
    stops the run at once: the worker still sleeping through a long row is terminated, not waited
    for, and the file keeps the finished row only."""
    import time

    from gpu_rs.calibration.table_pool import run_rows

    out = str(tmp_path / "t.jsonl")
    quick = {"n": 1000, "bits": 1, "eps": 1.0, "eta": 1e-2, "delta": None, "ratio": None, "k": 1}
    quick.update(scope="forward", q_tol=1e-4, sleep=0.0)
    todo = [quick, {**quick, "n": 2000, "sleep": 600.0}]

    def interrupt(done, total, row):
        raise KeyboardInterrupt

    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        run_rows(_sleepy_row, todo, {}, out, None, 2, interrupt, (0, 2))
    assert time.perf_counter() - start < 120  # the 600 s row was not waited for
    assert [r["n"] for r in read_rows(out)] == [1000]


def _children(pid):
    """Ids of the live (not zombie) processes whose parent is ``pid``, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    state, parent = f.read().rsplit(")", 1)[1].split()[:2]
            except OSError:
                continue
            if int(parent) == pid and state != "Z":
                found.append(int(entry))
    return found


def _cmdline(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read()


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


SIGNAL_GRID = ["--n", ",".join(str(1000 + 100 * i) for i in range(12)), "--bits", "1", "--eps", "1", "--eta", "1e-3"]
"""Twelve L = 1 rows of about half a second each: on two workers, most are still to do after the first."""


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the process table from /proc")
@pytest.mark.parametrize(
    ("sig", "status", "word"), [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")]
)
def test_signal_to_the_main_process_stops_the_table(tmp_path, sig, status, word):
    """Issue 33 item 5: SIGINT or SIGTERM to the main process only (not its group) stops a table at
    once with 130 or 143 and one line; the rows finished stay in the file and no worker is left."""
    import subprocess
    import sys
    import time

    out = tmp_path / "t.csv"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "gpu_rs", "table", *SIGNAL_GRID, "--workers", "2", "--out", str(out)]
    p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    workers = set()
    try:
        deadline = time.monotonic() + 120
        while len(read_rows(str(out)) if out.exists() else []) < 1:
            assert p.poll() is None and time.monotonic() < deadline, p.communicate()
            workers.update(_children(p.pid))
            time.sleep(0.02)
        workers.update(_children(p.pid))
        sent = time.monotonic()
        p.send_signal(sig)
        stdout, stderr = p.communicate(timeout=30)
        alive = [w for w in workers if _alive(w)]
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
        for w in workers:  # on failure, not left running
            if _alive(w):
                os.kill(w, signal.SIGKILL)
    assert time.monotonic() - sent < 15  # promptly: the running rows were not waited for
    assert p.returncode == status, stderr
    assert stderr.splitlines()[-1] == f"gpu-rs: {word}" and "Traceback" not in stderr, stderr
    assert stdout == ""
    rows = read_rows(str(out))
    assert 1 <= len(rows) < 12 and all(r["error"] is None and r["q"] is not None for r in rows)
    assert workers and alive == []  # it ran local workers, and none of them outlives it


def test_killed_local_worker_stops_the_run(tmp_path):
    """A local worker killed mid-table: RuntimeError naming the rows saved; a rerun completes the file."""
    out = str(tmp_path / "t.csv")
    grid = {**GRID, "n": [1000, 2000, 3000, 4000], "eps": [1.0, 2.0]}

    def kill_one(done, total, row):
        if done == 1:
            workers = [w for w in _children(os.getpid()) if b"table_pool import serve" in _cmdline(w)]
            os.kill(workers[0], signal.SIGKILL)

    with pytest.raises(RuntimeError, match=r"worker process died .*status -9.* rows finished are in"):
        gpu_rs.table(**grid, out=out, workers=2, progress=kill_one)
    first = _keys(out)
    assert 1 <= len(first) < 8 and len(set(first)) == len(first)
    t = gpu_rs.table(**grid, out=out, workers=2)
    assert (t.reused, t.computed) == (len(first), 8 - len(first))


UNGUARDED = """
import gpu_rs

t = gpu_rs.table(n=[1000, 3000], bits=1, eps=1.0, eta=1e-2, q_tol=1e-4, workers=2, out="t.csv")
print("rows", len(t.rows), sum(r["error"] is None for r in t.rows))
"""


def test_table_from_a_script_without_a_main_guard(tmp_path):
    """Issue 33 item 6: the README's call in a plain script (no ``if __name__ == "__main__":``)
    runs its rows on local workers, and the script runs once (workers never import it)."""
    import subprocess
    import sys

    (tmp_path / "plain.py").write_text(UNGUARDED)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "plain.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "rows 2 2\n"
    _agree(read_rows(str(tmp_path / "t.csv")))


def _agree_precision(rows):
    """As :func:`_agree`, with each row's ``rel_width`` too."""
    for r in rows:
        c = gpu_rs.calibrate(
            r["n"],
            r["bits"],
            r["eps"],
            r["eta"],
            scope=r["scope"],
            k=r["k"],
            q_tol=r["q_tol"],
            rel_width=r["rel_width"],
        )
        assert (r["q"], r["lower"], r["upper"]) == (c.q, c.at_q.lower, c.at_q.upper), r


def test_rows_are_keyed_by_q_tol_and_rel_width(tmp_path):
    """Issue 33 (tables): a row computed with another q_tol or rel_width is computed again, not reused."""
    out = str(tmp_path / "t.csv")
    serial = ThreadPoolExecutor(1)
    gpu_rs.table(**GRID, out=out, executor=serial)
    t = gpu_rs.table(**{**GRID, "q_tol": 1e-3}, out=out, executor=serial)
    assert (t.reused, t.computed) == (0, 2) and {r["q_tol"] for r in t.rows} == {1e-3}
    t = gpu_rs.table(**GRID, rel_width=1e-2, out=out, executor=serial)
    assert (t.reused, t.computed) == (0, 2) and {(r["q_tol"], r["rel_width"]) for r in t.rows} == {(1e-4, 1e-2)}
    rows = read_rows(out)
    assert len(rows) == 6 == len({row_key(r) for r in rows})
    _agree_precision(rows)
    assert gpu_rs.table(**GRID, rel_width=1e-2, out=out, executor=serial).reused == 2


FOREIGN = [
    pytest.param("t.csv", b"a,b\n1,2\n", "has the header", id="csv-header"),
    pytest.param("t.jsonl", b'{"n": 1000}\nhello\n', "is not JSON", id="jsonl-text"),
    pytest.param("t.jsonl", b'{"n": 1000, "bits": 1}\n', "does not hold table rows", id="jsonl-other-object"),
    pytest.param("t.json", b"[1, 2]\n", "does not hold table rows", id="json-list"),
    pytest.param("t.csv", b"\xff\xfe\x00bin", "cannot be read", id="binary"),
]


@pytest.mark.parametrize(("name", "content", "why"), FOREIGN)
def test_a_foreign_out_file_is_refused_up_front(tmp_path, capsys, name, content, why):
    """Issue 33 (tables): an out file that is not a gpu_rs table is refused before any work,
    naming ``out`` (API) or ``--out`` (CLI, exit 2, one line), and left as it was."""
    path = tmp_path / name
    path.write_bytes(content)

    def never(*args):
        raise AssertionError("a row ran")

    with pytest.raises(ValueError, match=r"^out must be .*" + why):
        gpu_rs.table(**GRID, out=str(path), executor=ThreadPoolExecutor(1), progress=never)
    argv = ["table", "--n", "1e3", "--bits", "1", "--eps", "1", "--eta", "1e-2", "--out", str(path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gpu-rs: error: --out must be") and why in err, err
    assert path.read_bytes() == content


@pytest.mark.parametrize(
    "axes",
    [
        {"n": None},
        {"n": []},
        {"bits": ()},
        {"eps": []},
        {"eta": [None]},
        {"scope": []},
        {"k": None},
    ],
    ids=str,
)
def test_a_missing_or_empty_axis_is_refused(axes):
    """Issue 33 (tables): ``table(n=None)`` (or any empty axis) raises ValueError naming it; no row runs."""
    name = next(iter(axes))

    def never(*args):
        raise AssertionError("a row ran")

    with pytest.raises(ValueError, match=rf"^{name} must be a value or a non-empty list"):
        gpu_rs.table(**{**GRID, **axes}, executor=ThreadPoolExecutor(1), progress=never)


@pytest.mark.parametrize("option", ["--n", "--bits", "--eps", "--eta", "--k", "--scope"])
def test_cli_refuses_an_empty_list(capsys, tmp_path, option):
    """Issue 33 (tables): ``--n ,`` is refused with exit 2 and one line naming the option."""
    argv = {"--n": "1e3", "--bits": "1", "--eps": "1", "--eta": "1e-2", "--k": "1", "--scope": "homogeneous"}
    argv[option] = ","
    out = tmp_path / "t.csv"
    assert main(["table", *[x for pair in argv.items() for x in pair], "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"gpu-rs: error: {option} ") and "','" in err, err
    assert not out.exists()


def test_json_out_is_one_json_document_with_schema_and_provenance(tmp_path):
    """Issue 33 (tables): ``.json`` holds one JSON document (not JSON lines); every row of every
    format carries the schema version and its provenance."""
    from gpu_rs.common.provenance import package_version

    path = tmp_path / "t.json"
    serial = ThreadPoolExecutor(1)
    gpu_rs.table(**GRID, out=str(path), executor=serial)
    t = gpu_rs.table(**{**GRID, "n": [1000, 2000, 3000]}, out=str(path), executor=serial)
    assert (t.reused, t.computed) == (2, 1)
    document = json.loads(path.read_text())
    assert document["schema"] == 1 and len(document["rows"]) == 3
    _agree(read_rows(str(path)))
    lines = tmp_path / "t.jsonl"
    gpu_rs.table(**{**GRID, "eta": [1e-2, 2.0]}, out=str(lines), executor=serial)
    records = [json.loads(line) for line in lines.read_text().splitlines()]
    assert [r["schema"] for r in records] == [1] * 4
    for row in [*document["rows"], *records, *read_rows(str(lines))]:
        assert row["provenance"]["gpu_rs"] == package_version("gpu-rs"), row
        assert row["provenance"]["backend"] in ("numpy", "auto"), row  # "auto" as asked, in an error row


@pytest.mark.parametrize("name", ["t.csv", "t.jsonl", "t.json"])
def test_numpy_settings_are_written(tmp_path, name):
    """A grid of NumPy numbers is written to every format (JSON has no NumPy types) and read back."""
    import numpy as np

    out = str(tmp_path / name)
    t = gpu_rs.table(n=np.array([1000]), bits=np.int64(1), eps=np.float64(1.0), eta=1e-2, q_tol=1e-4, out=out)
    assert t.computed == 1 and t.rows[0]["error"] is None
    assert [(r["n"], r["bits"], r["eps"]) for r in read_rows(out)] == [(1000, 1, 1.0)]
    _agree(read_rows(out))


def test_default_scope_is_calibrates(tmp_path):
    """Without a scope a row is ``calibrate``'s default, every pair (issue 30: the table defaulted to the seed's
    pair, so its q differed from calibrate's); rows with k > 1 too (the composition bound, issue 31)."""
    t = gpu_rs.table(n=[300], bits=[1, 2], eps=1.0, eta=1e-2, workers=1, out=str(tmp_path / "t.csv"))
    for row in t.rows:
        c = gpu_rs.calibrate(300, row["bits"], eps=1.0, eta=1e-2, backend="numpy")
        assert row["scope"] == c.scope == "all" and (row["q"], row["upper"]) == (c.q, c.at_q.upper)
    k2 = gpu_rs.table(n=[300], bits=1, eps=1.0, eta=1e-2, k=2, q_tol=1e-3, workers=1, out=str(tmp_path / "k.csv"))
    assert [row["scope"] for row in k2.rows] == ["all"]
