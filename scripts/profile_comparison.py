"""ε(δ) of shuffled L-bit randomized response: gpu_rs's certified profile against the shuffle accountants.

Issue 19, item 5. For L in {1, 2, 5, 8, 40} and N in {10^3, ..., 10^7}, q such that the local
privacy of one report is ε₀ = L log(p/q) = 4 (and the seed's settings), one row per setting:

- gpu_rs, ``privacy_profile(..., scope="homogeneous").epsilon(δ)``: the certified interval for
  the seed's pair, both orders (a lower bound on the worst case);
- gpu_rs, ``scope="all"``: the upper end proven for every neighbouring pair;
- gpu_rs's clone bound alone (what ``scope="all"`` uses for L >= 2), fast;
- the generic bounds of ``gpu_rs.reference`` (every pair, any ε₀-LDP randomizer): Feldman,
  McMillan and Talwar's closed form and numerical clone bound, Wang et al.'s variation-ratio
  bound, Balle et al.'s privacy blanket;
- dp_accounting on the exact one-bit pmf (L = 1 only; pessimistic, ``symmetric=False``).

Each value is computed once and cached in a JSON file (``--cache``), so a rerun only fills the
missing cells; a gpu_rs cell runs in a child process stopped after ``--timeout`` seconds and
is recorded as timed out (rerun with ``--retry`` and a larger ``--timeout``). The table goes to
stdout and, with ``--write``, into its own section of docs/benchmarks.md.

    python scripts/profile_comparison.py [--delta 1e-6] [--eps0 4] [--timeout 60] [--write]
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import numpy

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

import gpu_rs  # noqa: E402
from gpu_rs.common.errors import TimeBudgetError  # noqa: E402
from gpu_rs.pairs.clones import collapsed_delta  # noqa: E402
from gpu_rs.reference import generic_bounds as gb  # noqa: E402

BITS = (1, 2, 5, 8, 40)
NS = (10**3, 10**4, 10**5, 10**6, 10**7)
SEED_ROWS = ((1000, 5, 0.2446), (10**7, 40, 0.351))
"""The seed's settings (SPEC §2's example; the setting of issue 19's profile run)."""
METHODS = (
    "homogeneous",
    "all",
    "clones",
    "fmt_closed",
    "fmt_numerical",
    "variation_ratio",
    "vr_rr",
    "blanket",
    "dp_accounting",
)
SLOW = ("homogeneous", "all")
"""Methods run in a child process under the time limit."""
START, END = "<!-- profile-comparison:start -->", "<!-- profile-comparison:end -->"


def compute(method: str, n: int, bits: int, q: float, delta: float) -> dict[str, Any]:
    """One cell: ``{"value": ε, "lower": ..., "seconds": ...}`` (no ``lower`` for upper-bound-only methods)."""
    eps0 = gb.local_epsilon(bits, q)
    t0 = time.perf_counter()
    out: dict[str, Any] = {}
    if method in SLOW:
        try:
            e = gpu_rs.privacy_profile(n, bits, q, scope=method, backend="numpy").epsilon(delta)
        except TimeBudgetError:  # refused up front, with an estimate of its time
            return {"status": "refused up front", "seconds": time.perf_counter() - t0}
        out = {"value": e.upper, "lower": e.lower, "met": e.met}
    elif method == "clones":
        out = {"value": gb.epsilon_of(lambda eps: collapsed_delta(n, bits, q, eps)[0], eps0, delta)}
    elif method == "fmt_closed":
        out = {"value": gb.closed_form_epsilon(n, eps0, delta)}
    elif method == "fmt_numerical":
        out = {"value": gb.numerical_epsilon(n, eps0, delta)}
    elif method == "variation_ratio":
        out = {"value": gb.variation_ratio_epsilon(n, eps0, delta)}
    elif method == "vr_rr":
        out = {"value": gb.rr_variation_ratio_epsilon(n, bits, q, delta)}
    elif method == "blanket":
        out = {"value": gb.blanket_epsilon(n, eps0, delta)}
    elif method == "dp_accounting":
        if bits != 1:
            return {"status": "n/a"}
        from gpu_rs.reference.one_bit_pld import one_bit_pld

        out = {"value": one_bit_pld(n, q).get_epsilon_for_delta(delta)}
    out["seconds"] = time.perf_counter() - t0
    out["status"] = "ok"
    return out


def _child(queue: Any, args: tuple) -> None:
    queue.put(compute(*args))


def run_limited(args: tuple, timeout: float) -> dict[str, Any]:
    """``compute(*args)`` in a child process, stopped (by its handle) after ``timeout`` seconds."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child, args=(queue, args))
    t0 = time.perf_counter()
    child.start()
    child.join(timeout)
    if child.is_alive():
        child.terminate()
        child.join()
        return {"status": "timeout", "seconds": time.perf_counter() - t0}
    if child.exitcode != 0 or queue.empty():
        return {"status": f"failed (exit {child.exitcode})", "seconds": time.perf_counter() - t0}
    return queue.get()


def settings(eps0: float) -> list[tuple[int, int, float, str]]:
    """``(n, bits, q, label)`` of every row."""
    rows = [(n, bits, 1.0 / (1.0 + math.exp(eps0 / bits)), f"ε₀ = {eps0:g}") for bits in BITS for n in NS]
    return rows + [(n, bits, q, "seed") for n, bits, q in SEED_ROWS]


def fill(
    cache: dict[str, Any], path: str, delta: float, eps0: float, timeout: float, retry: bool, only: argparse.Namespace
) -> None:
    """Compute every missing cell (and timed-out ones with ``retry``) that ``only`` selects, saving after each."""
    for n, bits, q, _ in sorted(settings(eps0), key=lambda s: (s[1] * s[0], s[0])):
        if (only.bits and bits not in only.bits) or (only.n and n not in only.n):
            continue
        for method in METHODS:
            if only.methods and method not in only.methods:
                continue
            key = f"{method} n={n} bits={bits} q={q!r} delta={delta!r}"
            old = cache.get(key)
            if old and (old["status"] in ("ok", "n/a") or not retry):
                continue
            args = (method, n, bits, q, delta)
            cache[key] = run_limited(args, timeout) if method in SLOW else compute(*args)
            print(f"{key}: {cache[key]}", file=sys.stderr, flush=True)
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(cache, fh, indent=1, sort_keys=True)


def _cell(found: dict[str, Any] | None, fmt: Callable[[dict[str, Any]], str]) -> str:
    if not found:
        return "not run"
    if found["status"] == "n/a":
        return "—"
    if found["status"] != "ok":
        return f"**{found['status']}** ({found['seconds']:.0f} s)"
    return f"{fmt(found)} ({found['seconds']:.2g} s)"


def table(cache: dict[str, Any], delta: float, eps0: float) -> str:
    """The Markdown table of every row."""
    head = (
        "| L | N | q | ε₀ | gpu_rs homogeneous pair [lower, upper] | gpu_rs every pair (upper) | gpu_rs clone bound "
        "| FMT closed form | FMT numerical | variation-ratio | variation-ratio, β of L-bit RR | blanket "
        "| dp_accounting, exact one-bit pmf |"
    )
    lines = [head, "|" + "---|" * 13]
    for n, bits, q, _ in settings(eps0):
        cells = []
        for method in METHODS:
            found = cache.get(f"{method} n={n} bits={bits} q={q!r} delta={delta!r}")
            if method == "homogeneous":
                cells.append(_cell(found, lambda f: f"[{f['lower']:.4g}, {f['value']:.4g}]"))
            elif method == "all":
                cells.append(_cell(found, lambda f: f"{f['value']:.4g}"))
            else:
                cells.append(_cell(found, lambda f: f"{f['value']:.4g}"))
        lines.append(f"| {bits} | {n:.0e} | {q:.4g} | {gb.local_epsilon(bits, q):.3g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def machine() -> str:
    """One line: CPU, cores, Python, NumPy, dp_accounting, commit."""
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    git = ["git", "-C", ROOT]
    commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run([*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True)
    return (
        f"{cpu}, {os.cpu_count()} cores (shared with other jobs), Python {platform.python_version()}, "
        f"NumPy {numpy.__version__}, dp-accounting {version('dp-accounting')}, backend numpy; "
        f"commit {commit}{' (with local changes)' if dirty.stdout.strip() else ''}, {time.strftime('%Y-%m-%d')}"
    )


def section(body: str, delta: float, eps0: float, timeout: float) -> str:
    """The section of docs/benchmarks.md, between its markers."""
    return f"""{START}
## Issue 19: ε(δ = {delta:g}) against the shuffle accountants (generated by `scripts/profile_comparison.py`)

Machine and code: {machine()}.

Each cell: ε(δ = {delta:g}) and its wall time. q is set so that one report's local
privacy is ε₀ = L log(p/q) = {eps0:g}, plus the seed's two settings (last rows). gpu_rs cells ran
under a time limit ({timeout:g} s unless the cell shows another): "timeout" means not finished in
that time; rerun the script with `--retry` (and a larger `--timeout`) to fill those cells.

- *gpu_rs homogeneous pair*: `privacy_profile(n, bits, q, scope="homogeneous").epsilon(δ)`, the
  certified interval for the seed's pair in both orders: a lower bound on the worst case only.
- *gpu_rs clone bound*: the collapsed clone reduction specialised to bit flips
  (`gpu_rs.pairs.clones.collapsed_delta`, every distance d of the change), proven for every pair.
- *gpu_rs every pair*: the upper end of `privacy_profile(..., scope="all").epsilon(δ)`, proven for
  every neighbouring pair: for L = 1 the certified maximum over every background; for L ≥ 2 the root
  of the graded clone bound (`gpu_rs.pairs.every_pair`, never above the collapsed one) or of
  the homogeneous pair's upper end, whichever is larger, found by the profile's root finder.
- *FMT*: Feldman, McMillan, Talwar (FOCS 2021), closed form and numerical clone bound;
  *variation-ratio*: Wang et al. (PVLDB 2024), generic parameters, and with L-bit randomized
  response's own total variation β (`gpu_rs/reference/variation_ratio.py`); *blanket*: Balle, Bell,
  Gascón, Nissim (CRYPTO 2019), the better of the Hoeffding and Bennett bounds. All but the
  β column treat the report as a generic ε₀-LDP randomizer (`gpu_rs/reference/`); ε = ε₀ means
  no amplification shown.
- *dp_accounting*: `from_two_probability_mass_functions` on the exact one-bit pmfs
  (pessimistic, discretization 1e-4, `symmetric=False`); only L = 1 has a pmf anyone else can build.

{body}
{END}"""


def write_doc(text: str, path: str) -> None:
    """Replace the section between the markers in ``path`` (or append it)."""
    with open(path, encoding="utf-8") as fh:
        doc = fh.read()
    if START in doc and END in doc:
        doc = doc[: doc.index(START)] + text + doc[doc.index(END) + len(END) :]
    else:
        doc = doc.rstrip("\n") + "\n\n" + text + "\n"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(doc)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eps0", type=float, default=4.0, help="local privacy of one report, L log(p/q)")
    ap.add_argument("--delta", type=float, default=1e-6)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per gpu_rs cell")
    ap.add_argument("--cache", default=os.path.join(ROOT, "benchmarks", "profile_comparison.json"))
    ap.add_argument("--retry", action="store_true", help="recompute cells that timed out or failed")
    ap.add_argument("--write", action="store_true", help="write the section into docs/benchmarks.md")
    ap.add_argument("--bits", type=lambda s: [int(x) for x in s.split(",")], help="only these L (comma list)")
    ap.add_argument("--n", type=lambda s: [int(float(x)) for x in s.split(",")], help="only these N (comma list)")
    ap.add_argument("--methods", type=lambda s: s.split(","), help=f"only these columns, of {','.join(METHODS)}")
    ap.add_argument("--table-only", action="store_true", help="compute nothing: the table from the cache as it is")
    args = ap.parse_args(argv)
    cache: dict[str, Any] = {}
    if os.path.exists(args.cache):
        with open(args.cache, encoding="utf-8") as fh:
            cache = json.load(fh)
    if not args.table_only:
        fill(cache, args.cache, args.delta, args.eps0, args.timeout, args.retry, args)
    text = section(table(cache, args.delta, args.eps0), args.delta, args.eps0, args.timeout)
    print(text)
    if args.write:
        write_doc(text, os.path.join(ROOT, "docs", "benchmarks.md"))


if __name__ == "__main__":
    main()
