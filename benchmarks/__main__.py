"""``python -m benchmarks``: time the certified engine against its baselines (issue 4).

Usage::

    python -m benchmarks [--quick] [--backend numpy] [--markdown FILE] [--json FILE]
    python -m benchmarks --gpu-check OUTDIR

Prints, for each case, the wall time, peak memory, Fourier terms / lattice points and the
certified interval of the engine, next to Monte Carlo at equal wall time, naive repeated
squaring on a grid, and the seed's 3σ rule; then whether the issue-4 targets hold, and two
tables of cost growth (in ``N`` and in ``L``). ``--quick`` runs small cases in well under a
minute (the smoke test uses it). Every measurement runs in a spawned child process; see
:mod:`benchmarks.measure` for how time and memory are taken. ``--gpu-check OUTDIR`` runs only the
GPU check of :mod:`benchmarks.gpu_check`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from typing import Any

from . import cases as C
from .measure import Runner
from .report import Table, fmt_bytes, fmt_g, fmt_p, fmt_s, machine

MC_MIN_SECONDS = 0.5
"""Monte Carlo runs at the exact method's wall time, but never shorter than this."""


MEASURED = ("seconds", "peak", "delta", "py", "terms", "lower", "upper", "width", "rel", "met")
"""Cells of the engine table after the case's own columns, in order."""
ISOLATION = {
    True: "a fresh spawned process per measurement",
    False: "one shared spawned worker (peak mark reset per task)",
}


def _err(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _rel(lower: float, upper: float) -> float:
    width = upper - lower
    if lower > 0:
        return width / lower
    return 0.0 if width == 0 else math.inf


def _ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None:
        return "—"
    if b == 0:
        return "∞ (exact width 0)"
    return f"{a / b:,.0f}×" if a / b >= 10 else f"{a / b:.3g}×"


def _run_case(runner: Runner, case: C.Case, backend: str, quick: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"case": case.__dict__.copy()}
    if case.kind == "calibrate":
        _err(f"[{case.key}] calibrate n={case.n} bits={case.bits} eps={case.eps:g} eta={case.eta:g} …")
        out["exact"] = runner.run(
            "calibration",
            dict(n=case.n, bits=case.bits, eps=case.eps, eta=case.eta, backend=backend, q_tol=case.q_tol),
        )
        return out
    base = dict(n=case.n, bits=case.bits, q=case.q, eps=case.eps)
    _err(f"[{case.key}] tail n={case.n} bits={case.bits} q={case.q:g} eps={case.eps:g} …")
    exact = runner.run("exact_tail", dict(base, backend=backend))
    out["exact"] = exact
    if not case.baselines:
        return out
    seconds = max(exact.get("seconds", 0.0), MC_MIN_SECONDS)
    _err(f"[{case.key}] Monte Carlo for {seconds:.2g} s …")
    out["mc"] = runner.run("mc", dict(base, seconds=seconds), trace_kwargs=dict(base, seconds=0.05))
    caps = (
        dict(max_grid=1 << 16, time_cap=5.0, memory_cap=2**30)
        if quick
        else dict(max_grid=1 << 22, time_cap=120.0, memory_cap=4 * 2**30)
    )
    _err(f"[{case.key}] naive repeated squaring (grid <= {caps['max_grid']}, cap {caps['time_cap']:g} s) …")
    out["naive"] = runner.run("naive", dict(base, **caps), trace=False, timeout=4 * caps["time_cap"] + 60)
    try:
        from gpu_rs import three_sigma_q

        t0 = time.perf_counter()
        q3 = three_sigma_q(case.n, case.bits, case.eps)
        out["three_sigma"] = {"q": q3, "seconds": time.perf_counter() - t0}
        _err(f"[{case.key}] certified tail at the 3σ rule's q={q3:.6g} …")
        out["three_sigma"]["tail"] = runner.run("exact_tail", dict(base, q=q3, backend=backend), trace=False)
    except ValueError as exc:
        out["three_sigma"] = {"error": str(exc)}
    return out


def _run_growth(runner: Runner, points: list[tuple[int, int]], backend: str, label: str) -> list[dict[str, Any]]:
    from gpu_rs import three_sigma_q

    rows = []
    for n, bits in points:
        try:
            q = three_sigma_q(n, bits, C.GROWTH_EPS)
        except ValueError as exc:
            rows.append({"n": n, "bits": bits, "error": str(exc)})
            continue
        _err(f"[{label}] tail n={n} bits={bits} q={q:.6g} …")
        res = runner.run("exact_tail", dict(n=n, bits=bits, q=q, eps=C.GROWTH_EPS, backend=backend))
        rows.append({"n": n, "bits": bits, "q": q, "run": res})
    return rows


def _run_slow_tails(runner: Runner, backend: str) -> list[dict[str, Any]]:
    rows = []
    for c in C.SLOW_TAILS:
        _err(f"[{c.key}] slow tail n={c.n} bits={c.bits} q={c.q:g} eps={c.eps:g} scope={c.scope} …")
        args = dict(n=c.n, bits=c.bits, q=c.q, eps=c.eps, backend=backend, scope=c.scope)
        rows.append({"case": c.__dict__.copy(), "run": runner.run("exact_tail", args, trace=False)})
    return rows


def _slow_table(rows: list[dict[str, Any]]) -> Table:
    t = Table(
        f"Slowest single tails (issue 22: each <= {C.SLOW_TAIL_SECONDS:g} s)",
        [
            "case",
            "n",
            "bits",
            "q",
            "eps",
            "scope",
            "before",
            "seconds",
            "method",
            "terms",
            "lower",
            "upper",
            "met",
            f"<= {C.SLOW_TAIL_SECONDS:g} s",
        ],
    )
    for row in rows:
        c, cells = row["case"], _exact_cells(row["run"])
        head = [c["key"], f"{c['n']:.0e}", c["bits"], f"{c['q']:.6g}", f"{c['eps']:.6g}", c["scope"], c["before"]]
        if "error" in cells:
            t.add([*head, "ERROR " + cells["error"], *["—"] * 6])
            continue
        ok = row["run"]["seconds"] <= C.SLOW_TAIL_SECONDS
        verdict = "yes" if ok else "NO"
        t.add(
            [
                *head,
                cells["seconds"],
                cells["method"],
                cells["terms"],
                cells["lower"],
                cells["upper"],
                cells["met"],
                verdict,
            ]
        )
    return t


# ----------------------------------------------------------------------------------------
# Tables


def _exact_cells(run: dict[str, Any]) -> dict[str, str]:
    if "error" in run:
        return {"error": run["error"]}
    r = run["result"]
    lo, up = r["lower"], r["upper"]
    return {
        "seconds": fmt_s(run["seconds"]),
        "peak": fmt_bytes(run["peak_rss"]),
        "delta": fmt_bytes(run["delta_rss"]),
        "py": fmt_bytes(run.get("py_peak")),
        "terms": f"{r['grid_points']:,}",
        "lower": fmt_p(lo),
        "upper": fmt_p(up),
        "width": fmt_p(up - lo, 2),
        "rel": fmt_p(_rel(lo, up), 2),
        "method": r["method"],
        "met": "yes" if r["met"] else "NO",
        "backend": r["backend"],
    }


ENGINE_HEADERS = [
    "case",
    "backend",
    "method",
    "q",
    "seconds",
    "peak RSS",
    "ΔRSS",
    "tracemalloc peak",
    "terms",
    "lower",
    "upper",
    "width",
    "rel width",
    "met",
]


def build_tables(res: dict[str, Any]) -> list[Table]:
    tables = []
    engine = Table(
        "Certified engine",
        ENGINE_HEADERS,
        [
            "peak RSS: high-water resident set of the child process (interpreter + NumPy/SciPy included);",
            "ΔRSS: its rise during the case; tracemalloc peak: Python/NumPy allocations in a second, traced run.",
            "terms: Fourier frequencies K (fourier), lattice size (lattice), 0 (exact/chernoff).",
            "rel width = (upper − lower)/lower; asked rel_width = 1e-3.",
        ],
    )
    base = Table(
        "Baselines: Monte Carlo at equal wall time, naive repeated squaring",
        [
            "case",
            "exact s",
            "exact width",
            "MC s",
            "MC samples",
            "MC estimate",
            "MC 99.9% CI",
            "MC CI width",
            "MC/exact width",
            "naive grid G",
            "naive s",
            "naive peak RSS",
            "naive [P_down, P_up]",
        ],
        [
            "MC: T ~ Multinomial(N−1, p0), outlier l ~ Bin(L, p), X = Σ T_l w_l + w_l1 > N e^ε; "
            "two-sided Clopper–Pearson 99.9 %.",
            "naive: grid of G points over [0, N e^ε], atoms rounded up/down, FFT exponentiation by squaring "
            "with an overflow bucket; uncertified (round-off ignored); G is the largest power of two "
            "<= 2^22 whose estimated time fits the cap.",
        ],
    )
    three = Table(
        "The seed's 3σ rule: what it really risks",
        ["case", "n", "bits", "eps", "q (3σ)", "3σ s", "certified tail at q (3σ)", "η", "tail <= η?"],
        [f"η = {C.ETA_3SIGMA:g}: the tail the rule is meant to keep (issue 4; a normal 3σ tail is 1.35e-3)."],
    )
    for item in res["cases"]:
        case = item["case"]
        key = f"{case['key']}: {case['title']}"
        setting = [key, case["n"], case["bits"], fmt_g(case["eps"])]
        run = item["exact"]
        cells = _exact_cells(run)
        if "error" in cells:
            engine.add([key, "—", "ERROR", "—", cells["error"]] + ["—"] * (len(ENGINE_HEADERS) - 5))
            continue
        measured = [cells[k] for k in MEASURED]
        if case["kind"] == "calibrate":
            r = run["result"]
            calibrated = f"calibrate ({r['steps']} tails, max {fmt_s(r['step_seconds_max'])})"
            engine.add([key, cells["backend"], calibrated, f"{r['q']:.8g}", *measured])
            if r.get("three_sigma_q") is not None:
                ok = r["three_sigma_upper"] <= case["eta"]
                three.add(
                    [
                        *setting,
                        f"{r['three_sigma_q']:.6g}",
                        "—",
                        f"[{fmt_p(r['three_sigma_lower'], 4)}, {fmt_p(r['three_sigma_upper'], 4)}]",
                        f"{case['eta']:g}",
                        "yes" if ok else f"NO (calibrated q = {r['q']:.6g})",
                    ]
                )
            continue
        r = run["result"]
        engine.add([key, cells["backend"], cells["method"], f"{case['q']:g}", *measured])
        if "mc" in item:
            m = item["mc"]
            ew = r["upper"] - r["lower"]
            if "error" in m:
                mc_cells = ["ERROR " + m["error"]] + ["—"] * 5
            else:
                mr = m["result"]
                mc_cells = [
                    fmt_s(mr["seconds"]),
                    f"{mr['samples']:,}",
                    fmt_p(mr["estimate"], 3),
                    f"[{fmt_p(mr['ci_lower'], 3)}, {fmt_p(mr['ci_upper'], 3)}]",
                    fmt_p(mr["ci_width"], 2),
                    _ratio(mr["ci_width"], ew),
                ]
            nv = item["naive"]
            if "error" in nv:
                nv_cells = ["ERROR " + nv["error"], "—", "—", "—"]
            elif "skipped" in nv["result"]:
                nv_cells = [nv["result"]["skipped"], "—", "—", "—"]
            else:
                nr = nv["result"]
                nv_cells = [
                    f"2^{int(math.log2(nr['grid']))}",
                    fmt_s(nr["seconds"]),
                    fmt_bytes(nv["peak_rss"]),
                    f"[{fmt_p(nr['lower'], 4)}, {fmt_p(nr['upper'], 4)}]",
                ]
            base.add([key, fmt_s(run["seconds"]), fmt_p(ew, 2), *mc_cells, *nv_cells])
        if "three_sigma" in item:
            t3 = item["three_sigma"]
            if "error" in t3:
                three.add([*setting, t3["error"], "—", "—", "—", "—"])
            elif "error" in t3["tail"]:
                three.add(
                    [
                        *setting,
                        f"{t3['q']:.6g}",
                        fmt_s(t3["seconds"]),
                        "ERROR " + t3["tail"]["error"],
                        "—",
                        "—",
                    ]
                )
            else:
                tr = t3["tail"]["result"]
                ok = tr["upper"] <= C.ETA_3SIGMA
                verdict = "yes" if ok else ("NO" if tr["lower"] > C.ETA_3SIGMA else "undecided")
                three.add(
                    [
                        *setting,
                        f"{t3['q']:.6g}",
                        fmt_s(t3["seconds"]),
                        f"[{fmt_p(tr['lower'], 4)}, {fmt_p(tr['upper'], 4)}]",
                        f"{C.ETA_3SIGMA:g}",
                        verdict,
                    ]
                )
    tables += [engine, base, three]
    targets = _targets(res)
    if targets.rows:
        tables.append(targets)
    for label, title in (
        ("growth_n", "Cost against N (L = 40, ε = 2, q from the 3σ rule)"),
        ("growth_l", "Cost against L (ε = 2, q from the 3σ rule)"),
    ):
        t = Table(
            title,
            [
                "N",
                "L",
                "q (3σ)",
                "method",
                "seconds",
                "peak RSS",
                "ΔRSS",
                "tracemalloc peak",
                "terms",
                "width",
                "rel width",
                "tail (estimate)",
            ],
        )
        for row in res.get(label, []):
            if "error" in row:
                t.add([f"{row['n']:.0e}", row["bits"], row["error"]] + ["—"] * 9)
                continue
            c = _exact_cells(row["run"])
            if "error" in c:
                t.add([f"{row['n']:.0e}", row["bits"], f"{row['q']:.6g}", "ERROR " + c["error"]] + ["—"] * 8)
                continue
            rr = row["run"]["result"]
            t.add(
                [
                    f"{row['n']:.0e}",
                    row["bits"],
                    f"{row['q']:.6g}",
                    c["method"],
                    c["seconds"],
                    c["peak"],
                    c["delta"],
                    c["py"],
                    c["terms"],
                    c["width"],
                    c["rel"],
                    fmt_p(rr["estimate"], 4),
                ]
            )
        if t.rows:
            tables.append(t)
    if res.get("slow_tails"):
        tables.append(_slow_table(res["slow_tails"]))
    return tables


def _targets(res: dict[str, Any]) -> Table:
    t = Table("Issue-4 targets", ["case", "target", "measured", "holds"])

    def add(key: str, what: str, measured: str, ok: bool) -> None:
        t.add([key, what, measured, "yes" if ok else "NO"])

    for item in res["cases"]:
        case = item["case"]
        run = item["exact"]
        key = case["key"]
        if "error" in run:
            add(key, "runs", run["error"], False)
            continue
        r = run["result"]
        if case["max_seconds"] is not None:
            add(key, f"time <= {case['max_seconds']:g} s", fmt_s(run["seconds"]), run["seconds"] <= case["max_seconds"])
        if case["moonshot_seconds"] is not None:
            add(
                key,
                f"moonshot: time <= {case['moonshot_seconds']:g} s",
                fmt_s(run["seconds"]),
                run["seconds"] <= case["moonshot_seconds"],
            )
        if case["max_bytes"] is not None:
            add(
                key,
                f"peak RSS <= {case['max_bytes'] / 1e9:g} GB",
                fmt_bytes(run["peak_rss"]),
                run["peak_rss"] <= case["max_bytes"],
            )
        rel = _rel(r["lower"], r["upper"])
        if case["max_rel_width"] is not None:
            add(key, f"rel width <= {case['max_rel_width']:g}", fmt_p(rel, 2), rel <= case["max_rel_width"])
        add(key, "asked width met (rel_width 1e-3)", fmt_p(rel, 2), bool(r["met"]))
        if case["min_mc_ratio"] is not None and "mc" in item and "result" in item["mc"]:
            ratio = item["mc"]["result"]["ci_width"] / max(r["upper"] - r["lower"], 1e-300)
            add(
                key,
                f"MC width / exact width >= {case['min_mc_ratio']:g} at equal wall time "
                f"(MC ran {fmt_s(item['mc']['result']['seconds'])})",
                f"{ratio:,.0f}",
                ratio >= case["min_mc_ratio"],
            )
    return t


def render(tables: list[Table], res: dict[str, Any], markdown: bool) -> str:
    if not markdown:
        return "\n\n".join(tb.text() for tb in tables)
    m = res["machine"]
    head = [
        "## Benchmark run",
        "",
        f"- command: `{res['command']}`",
        f"- date: {m['date']}",
        f"- machine: {m['cpu']}, {m['cores']} logical cores, {m['memory']} RAM; {m['os']}",
        f"- python {m['python']}, numpy {m['numpy']}, scipy {m['scipy']}, gpu_rs {m['gpu_rs']}",
        f"- engine: git {m['git']}; sha256 of gpu_rs/*.py {m['engine_sha256']}"
        + (
            ""
            if res.get("engine_sha256_end", m["engine_sha256"]) == m["engine_sha256"]
            else f" at the start, {res['engine_sha256_end']} at the end (CHANGED DURING THE RUN)"
        ),
        f"- backend: {res['backend']}; isolation: {ISOLATION[bool(res['fresh'])]}",
        f"- total wall time of the run: {fmt_s(res['seconds'])}",
        "",
    ]
    return "\n".join(head) + "\n" + "\n\n".join(tb.markdown() for tb in tables) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; returns 0 when every engine measurement ran (targets may still fail)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small cases only (< 1 min)")
    parser.add_argument(
        "--backend", default="numpy", choices=("numpy", "cupy", "auto"), help="array backend (default numpy)"
    )
    parser.add_argument("--markdown", metavar="FILE", help="also write the tables as Markdown")
    parser.add_argument("--json", metavar="FILE", help="also write every raw measurement as JSON")
    iso = parser.add_mutually_exclusive_group()
    iso.add_argument(
        "--fresh",
        dest="fresh",
        action="store_true",
        default=None,
        help="a fresh child process per measurement (default unless --quick)",
    )
    iso.add_argument(
        "--shared",
        dest="fresh",
        action="store_false",
        help="one child process for all measurements (default with --quick)",
    )
    parser.add_argument("--no-growth", action="store_true", help="skip the growth tables")
    parser.add_argument("--no-slow-tails", action="store_true", help="skip the slowest-tails table (full runs)")
    parser.add_argument(
        "--gpu-check",
        metavar="OUTDIR",
        help="only the GPU check (CuPy tests, doctor parity, CPU-against-GPU timings, < 8 min) into OUTDIR; "
        "without a GPU one line and exit 0",
    )
    args = parser.parse_args(None if argv is None else list(argv))
    fresh = (not args.quick) if args.fresh is None else args.fresh
    cmd = "python -m benchmarks" + (
        "" if argv is None and len(sys.argv) <= 1 else " " + " ".join(sys.argv[1:] if argv is None else list(argv))
    )
    if args.gpu_check:
        from .gpu_check import main as gpu_check

        return gpu_check(args.gpu_check, cmd)

    start = time.perf_counter()
    res: dict[str, Any] = {
        "command": cmd,
        "backend": args.backend,
        "fresh": fresh,
        "quick": args.quick,
        "machine": machine(),
        "cases": [],
    }
    cases = C.QUICK_CASES if args.quick else C.FULL_CASES
    with Runner(args.backend, fresh=fresh) as runner:
        for case in cases:
            res["cases"].append(_run_case(runner, case, args.backend, args.quick))
        if not args.no_growth:
            res["growth_n"] = _run_growth(runner, C.growth_n(args.quick), args.backend, "growth N")
            res["growth_l"] = _run_growth(runner, C.growth_l(args.quick), args.backend, "growth L")
        if not (args.quick or args.no_slow_tails):
            res["slow_tails"] = _run_slow_tails(runner, args.backend)
    res["seconds"] = time.perf_counter() - start
    from .report import engine_fingerprint

    res["engine_sha256_end"] = engine_fingerprint()
    if res["engine_sha256_end"] != res["machine"]["engine_sha256"]:
        _err("WARNING: the gpu_rs sources changed during the run; the tables mix engine versions")

    tables = build_tables(res)
    print(render(tables, res, markdown=False), flush=True)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as fh:
            fh.write(render(tables, res, markdown=True))
        _err(f"wrote {args.markdown}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(res, fh, indent=1, default=str)
        _err(f"wrote {args.json}")
    failed = [i["case"]["key"] for i in res["cases"] if "error" in i["exact"]]
    failed += [
        f"{r['n']}/{r['bits']}"
        for lbl in ("growth_n", "growth_l")
        for r in res.get(lbl, [])
        if "run" in r and "error" in r["run"]
    ]
    failed += [r["case"]["key"] for r in res.get("slow_tails", []) if "error" in r["run"]]
    if failed:
        _err(f"engine errors in: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
