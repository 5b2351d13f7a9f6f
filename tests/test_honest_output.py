"""Issue 33 items 9, 12 and 13: what the results and the command line say is what they hold.

Oracles: exact rational tails of every homogeneous background (:func:`test_family.exact_tails`),
the exact ``δ`` of the homogeneous pair at L = 2 (:func:`oracles.log_delta_L2`), the seed's fact
``P[R > 2] ≈ 0.00707`` at N = 1000, L = 5, q = 0.2446 (shared/seeds/README.md).
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import math
import re
from pathlib import Path
from typing import Any

import oracles as O
import pytest
from test_family import exact_tails

import gpu_rs
from gpu_rs.cli.main import main
from gpu_rs.pairs import family

ROOT = Path(__file__).resolve().parents[1]
ISSUE_TAIL = ["tail", "--n", "1000", "--bits", "5", "--q", "0.2446", "--eps", "0.6931", "--backend", "numpy"]
"""The command of issue 33 item 9: the best pair known 0.0071, the proven bound 0.23."""


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ item 9: the estimate under "all"


def test_tail_estimate_under_all_is_the_best_pair_known():
    """At L >= 2 the interval runs from the best pair known to a proven bound: its midpoint (0.956 here)
    is the tail of no pair; the estimate is the largest exact tail over the homogeneous backgrounds."""
    n, bits, q, eps = 3, 2, 0.1, 1.0
    b = gpu_rs.tail(n, bits, q, eps, backend="numpy")
    best = max(float(exact_tails(n, *m.vectors(), q, math.exp(eps))[0]) for m in family.members(bits))
    assert b.estimate == pytest.approx(best, rel=1e-6)
    assert b.lower <= b.estimate <= b.upper and b.upper - b.lower > 0.05
    assert b.bound_only


def test_cli_tail_estimate_under_all_says_what_it_is(capsys):
    code, out, _ = run(capsys, [*ISSUE_TAIL, "--json"])
    got = json.loads(out)
    assert code == 0 and got["upper"] > 0.1
    assert abs(got["estimate"] - 0.00707) < 5e-5  # the seed's pair, the best pair known (not 0.119)
    assert "estimate: that pair's" in got["guarantee"]
    code, out, _ = run(capsys, ISSUE_TAIL)
    line = next(x for x in out.splitlines() if x.strip().startswith("estimate"))
    assert "7.07" in line and "best pair known" in line


def _pair_delta(n: int, q: float, eps: float) -> float:
    """Exact ``δ(ε)`` of the homogeneous pair at L = 2, the larger of both orders."""
    return max(math.exp(O.log_delta_L2(n, q, eps, forward=f)) for f in (True, False))


def test_profile_estimates_under_all_are_the_homogeneous_pair():
    """``δ(ε)`` and ``ε(δ)`` under ``scope="all"`` at L = 2: the estimate is the homogeneous pair's
    value (exact sums), not the midpoint between it and the proven bound."""
    n, q, eps, delta = 100, 0.1192, 1.0, 1e-3
    prof = gpu_rs.privacy_profile(n, 2, q, backend="numpy")
    d = prof.delta(eps)
    exact = _pair_delta(n, q, eps)
    assert d.upper > 1.2 * exact and d.lower <= d.estimate <= d.upper
    assert d.estimate == pytest.approx(exact, rel=1e-3)
    e = prof.epsilon(delta)
    lo, hi = 0.0, 10.0  # the pair's ε(δ) by bisection on the exact δ, nonincreasing in ε
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _pair_delta(n, q, mid) > delta else (lo, mid)
    assert e.upper > 1.5 * hi and e.lower <= e.estimate <= e.upper
    assert e.estimate == pytest.approx(hi, rel=2e-3)


# ------------------------------------------------------------------ item 13: numbers and counters


def test_cli_tail_lists_each_pair_once_and_measures_the_width_as_asked(capsys):
    """The seed's pair is the best pair known here: it is listed once, and the width is compared with
    the relative target as the target measures it (relative to the lower end)."""
    code, out, err = run(capsys, ISSUE_TAIL)
    assert code == 0
    pairs = [x for x in out.splitlines() if x.strip().startswith("pair ")]
    values = [x.split(":", 1)[1] for x in pairs]
    assert len(values) == len(set(values)) == 2
    b = gpu_rs.tail(1000, 5, 0.2446, 0.6931, backend="numpy")
    relative = f"{b.width / b.lower:.3g} times the lower end"
    assert relative in err and relative in out


def test_cli_prints_small_numbers_in_significant_digits(capsys):
    """A q of 4e-9 is not ``0.000000``, and an upper end that is 0 rounded outwards (the subnormal
    4.940656e-324) is shown as below the smallest normal float, not as digits it does not have."""
    argv = ["calibrate", "--n", "1e9", "--bits", "1", "--eps", "1", "--eta", "1e-2", "--scope", "forward"]
    code, out, _ = run(capsys, [*argv, "--q-tol", "1e-4", "--backend", "numpy", "--quiet"])
    assert code == 0
    rows = {x.split()[0]: x.split() for x in out.splitlines() if x.startswith("  ") and x.split()}
    assert float(rows["3-sigma"][2]) == pytest.approx(gpu_rs.three_sigma_q(10**9, 1, 1.0), rel=1e-5)
    assert "0.000000" not in out and "4.94" not in out and "<2.2e-308" in rows["calibrated"][3]
    code, out, _ = run(
        capsys, ["profile", "--n", "1e6", "--bits", "40", "--q", "0.4", "--eps", "3", "--backend", "numpy"]
    )
    reverse = next(x for x in out.splitlines() if x.strip().startswith("reverse"))
    assert code == 0 and "4.94" not in reverse and "<2.2e-308" in reverse


def test_tail_ends_are_python_floats():
    """An exact enumeration's ends were NumPy scalars: a table wrote them as ``np.float64(0.00099…)``."""
    b = gpu_rs.tail(1000, 2, 0.10556171614259476, 1.0, scope="homogeneous", backend="numpy")
    assert b.method == "enumeration"
    assert type(b.lower) is float and type(b.upper) is float and type(b.estimate) is float


# ------------------------------------------------------------------ item 12: the profile's figure


def test_profile_plot_shows_every_band_it_names_and_marks_floors_as_floors():
    """Issue 33's figure (N = 1e6, L = 40, q = 0.4): the seed's pair's bands lie 5 to 15 decades below
    the proven upper end; the axis reaches each of their ends (from MIN_TARGET = 1e-30 up), and an
    end at or below the axis floor (the reverse order's upper end, 0 rounded outwards) is drawn on a
    line labelled as the floor with its own marker, not as data on the band's line."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    eps = [0.5, 1.5, 3.0]
    prof = gpu_rs.privacy_profile(10**6, 40, 0.4, backend="numpy")
    ax = Figure().subplots()
    prof.plot(eps, ax=ax)
    found = prof.delta(eps)  # cached: the values drawn
    lines = {line.get_label(): line for line in ax.get_lines()}
    floor_line = next(line for label, line in lines.items() if label.startswith("axis floor"))
    floor = float(floor_line.get_ydata()[0])
    assert ax.get_ylim()[0] <= floor
    ends = [v for d in found for name in ("forward", "reverse") for v in getattr(d, name)]
    assert min(v for v in ends if v > 0) < 1e-3 * min(d.upper for d in found)  # the bands far below
    assert all(v > floor for v in ends if v >= 1e-30)  # every band end worth drawing is on the axis
    below = [d.eps for d in found if d.reverse[1] <= floor]
    assert below  # the reverse order's upper end is 0 rounded outwards here
    marks = next(line for label, line in lines.items() if "reverse order: upper end at or below the floor" in label)
    assert list(marks.get_xdata()) == below and set(marks.get_ydata()) == {floor}
    band = next(line for label, line in lines.items() if label.endswith("reverse order (certified band)"))
    assert all(math.isnan(y) for x, y in zip(band.get_xdata(), band.get_ydata(), strict=True) if x in below)


# ------------------------------------------------------------------ item 14: docs say what the code does


def _build() -> Any:
    """notebooks/build.py, the source of the notebooks."""
    spec = importlib.util.spec_from_file_location("_notebook_build", ROOT / "notebooks" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_and_notebooks_name_the_default_scope():
    """docs/spec.md §1.1 and notebook 01 mark as the default the scope the API defaults to."""
    build = _build()
    default = inspect.signature(gpu_rs.tail).parameters["scope"].default
    section = (ROOT / "docs" / "spec.md").read_text(encoding="utf-8").split("### 1.1")[1].split("### 1.2")[0]
    marked = [line for line in section.splitlines() if line.startswith("- `") and "default" in line]
    assert len(marked) == 1 and marked[0].startswith(f'- `"{default}"`'), marked
    text = " ".join(source for _, source in build.QUICKSTART)
    assert re.findall(r"default scope, `(\w+)`", text) == [default]


def test_notebook_05_labels_the_seed_pair_as_one_pair_and_draws_the_every_pair_line():
    """The seed's pair's ε(δ) is a lower bound on the worst case, not a guarantee; the proven
    every-pair line is in the figure of ε(δ) against N at every (N, L) of the comparison, and in the
    figure of δ(ε) beside the generic bounds."""
    build = _build()
    source = " ".join(text for _, text in build.ACCOUNTANTS)
    label = re.search(r'"homogeneous": "([^"]*)"', source).group(1)
    assert "seed's pair only" in label and "not a guarantee" in label
    assert "every pair (proven, scope all)" in source.split("## ε(δ = 10⁻⁶) against N")[0]
    cells = json.loads((ROOT / "benchmarks" / "profile_comparison.json").read_text(encoding="utf-8"))
    for bits in (1, 2, 5, 8, 40):
        q = 1.0 / (1.0 + math.exp(4.0 / bits))
        for n in (10**3, 10**4, 10**5, 10**6, 10**7):
            assert cells[f"all n={n} bits={bits} q={q!r} delta=1e-06"]["status"] == "ok", (n, bits)


def test_readme_table_sample_is_what_the_code_computes():
    """Each row of the README's `gpu-rs table` sample: the q and upper end `gpu_rs.calibrate` gives now
    (a row is exactly `calibrate` at its setting; rerun the sample's command when this fails)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("$ gpu-rs table ", 1)[1].split("```", 1)[0]
    command = block.splitlines()[0].split()
    grid = {name: command[command.index(name) + 1] for name in ("--n", "--bits", "--eps", "--eta")}
    assert "--scope" not in command  # the table's default scope, calibrate's: all
    lines = block.split("$ cut ", 1)[1].splitlines()[1:]
    header, rows = lines[0].split(), [dict(zip(lines[0].split(), line.split(), strict=True)) for line in lines[1:]]
    assert {"n", "bits", "eps", "scope", "q", "upper"} <= set(header)
    assert {r["scope"] for r in rows} == {"all"}
    settings = {
        (float(n), int(b), float(e))
        for n in grid["--n"].split(",")
        for b in grid["--bits"].split(",")
        for e in grid["--eps"].split(",")
    }
    assert {(float(r["n"]), int(r["bits"]), float(r["eps"])) for r in rows} == settings
    for r in rows:
        c = gpu_rs.calibrate(
            int(r["n"]),
            int(r["bits"]),
            eps=float(r["eps"]),
            eta=float(grid["--eta"]),
            backend="numpy",
        )
        assert (c.q, c.tail.upper) == (float(r["q"]), float(r["upper"])), r
