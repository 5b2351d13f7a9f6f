"""The figure of :meth:`~gpu_rs.quantities.distribution.RatioDistribution.plot`: the pmf and the sf with its band."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def _figure(path: str | None) -> Any:
    try:
        if path is not None:  # a bare Figure: no pyplot state, no change of the session's backend
            from matplotlib.figure import Figure

            return Figure(figsize=(8, 6.5), layout="constrained")
        import matplotlib.pyplot as plt

        return plt.figure(figsize=(8, 6.5), layout="constrained")
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plot() needs matplotlib: pip install 'gpu-rs[plot]'") from exc


def draw(d: Any, path: str | None, eps: float | None) -> Any:
    """Panel 1: bucket masses (tail beyond ``e^eps`` shaded, its certified mass printed); panel 2: the sf band."""
    fig = _figure(path)
    top, bottom = fig.subplots(2, 1, sharex=True)
    e = d.edges
    log_x = bool(d.log_tail) and e[0] > 0.0
    lam = math.exp(eps) if eps is not None else None
    tail = np.zeros(d.probs.shape, dtype=bool) if lam is None else e[:-1] >= lam
    top.stairs(d.probs, e, color="C0", lw=1.2, label="bucket mass (estimate)")
    top.stairs(d.probs_upper, e, color="C0", lw=0.6, ls=":", label="certified upper bound")
    if tail.any():
        top.stairs(np.where(tail, d.probs, 0.0), e, fill=True, color="C3", alpha=0.35, label="R > e^ε")
    top.set_ylabel("P[R in bucket]")
    top.set_yscale("log" if log_x else "linear")
    if log_x:
        floor = max(float(np.min(d.probs_upper[d.probs_upper > 0], initial=1e-300)), 1e-300)
        top.set_ylim(max(floor, 1e-18), None)
    top.set_title(
        f"R = X/N, forward order of the seed's pair: N = {d.n}, L = {d.bits}, q = {d.q:.4g}\n"
        f"outside the window: below in [{d.below[0]:.2e}, {d.below[1]:.2e}], "
        f"above in [{d.above[0]:.2e}, {d.above[1]:.2e}]\n"
        f"buckets + outside: total mass in [{d.total_lower:.6f}, {d.total_upper:.6f}] (certified)",
        fontsize=10,
    )
    bottom.fill_between(e, np.maximum(d.sf_lower, 1e-300), d.sf_upper, step=None, color="C1", alpha=0.4, lw=0)
    bottom.plot(e, d.sf_upper, color="C1", lw=1.0, label="certified upper bound of P[R > x]")
    bottom.plot(e, d.sf_lower, color="C2", lw=1.0, ls="--", label="certified lower bound")
    bottom.set_yscale("log")
    positive = d.sf_upper[d.sf_upper > 0]
    bottom.set_ylim(max(float(positive.min(initial=1.0)) * 0.3, 1e-300), 2.0)
    bottom.set_xlabel("privacy ratio R" + (" (log scale)" if log_x else ""))
    bottom.set_ylabel("P[R > x]")
    if lam is not None:
        lo, hi = d.sf(lam)
        for ax in (top, bottom):
            ax.axvline(lam, color="C3", ls="--", lw=1)
        text = f"P[R > e^ε = {lam:.4g}] ∈ [{lo:.4e}, {hi:.4e}]\n(certified, forward order)"
        top.text(
            0.98,
            0.95,
            text,
            transform=top.transAxes,
            ha="right",
            va="top",
            fontsize=9,
            bbox={"boxstyle": "round", "fc": "white", "ec": "C3"},
        )
        # The interval is far narrower than a marker: a point at its upper end shows where it is.
        label = "certified tail at e^ε"
        bottom.plot([lam, lam], [max(lo, 1e-300), hi], color="C3", lw=3, marker="o", ms=5, label=label)
    if log_x:
        top.set_xscale("log")
    top.legend(loc="best", fontsize=8)
    bottom.legend(loc="lower left", fontsize=8)
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
