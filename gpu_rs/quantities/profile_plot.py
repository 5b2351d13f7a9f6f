"""The plot of a certified privacy profile, one release or composed: ``δ`` against ``ε``, each order's band."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from gpu_rs.common.limits import MIN_TARGET


def draw(
    profile: Any,
    eps: Sequence[float] | np.ndarray | None = None,
    *,
    ax: Any = None,
    path: str | None = None,
    others: Mapping[str, Callable[[np.ndarray], np.ndarray]] | None = None,
) -> Any:
    """``δ`` of ``profile`` against ``ε`` on a log axis, each order's certified band; saved to ``path`` if given.

    ``others`` maps a label to a curve ``δ(ε)`` (an array of ``ε`` in, an array out) drawn
    beside ours, e.g. the generic shuffle bounds of
    ``gpu_rs.reference.generic_bounds.generic_curves(n, bits, q)``.

    The axis reaches a decade below the least value drawn that is at least
    :data:`~gpu_rs.common.limits.MIN_TARGET` (the least ``δ`` a calibration takes), so every
    band it names is on it; that floor is a dotted line, and a value at or below it (a lower end
    of 0, an upper end that is 0 rounded outwards) is drawn on it as a triangle pointing down,
    not as data. The bound's own floor, ``abs_width`` (an interval that narrow is not narrowed
    further), is a dashed grey line, and an upper end below it whose interval is wider than
    ``rel_width`` asks is an open circle: ``δ`` may lie far below it. Under ``scope="all"`` at
    several bits the bands are the seed's pair's and the dashed black line the proven upper end
    over every pair.
    """
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    grid = np.linspace(0.05, 3.0, 30) if eps is None else np.asarray(eps, dtype=float)
    found = profile.delta(grid)
    fig = None
    if ax is None:
        fig = Figure(figsize=(7, 4.5)) if path else plt.figure(figsize=(7, 4.5))
        ax = fig.subplots()
    bands = {
        name: (np.array([getattr(d, name)[0] for d in found]), np.array([getattr(d, name)[1] for d in found]))
        for name in ("forward", "reverse")
        if all(getattr(d, name) is not None for d in found)
    }
    upper = np.array([d.upper for d in found])
    curves = {label: np.asarray(curve(grid), dtype=float) for label, curve in (others or {}).items()}
    drawn = np.concatenate([upper, *(np.concatenate(b) for b in bands.values()), *curves.values()])
    shown = drawn[drawn >= MIN_TARGET]
    floor = 0.1 * float(shown.min()) if shown.size else MIN_TARGET
    pair = "seed's pair, " if profile.bound_only else ""
    for (name, (lo, hi)), color in zip(bands.items(), ("C0", "C1"), strict=False):
        above = hi > floor
        ax.fill_between(grid, np.maximum(lo, floor), np.where(above, hi, floor), color=color, alpha=0.35, lw=0)
        ax.plot(grid, np.where(above, hi, np.nan), color=color, lw=1, label=f"{pair}{name} order (certified band)")
        _on_floor(ax, grid, hi, floor, color, f"{pair}{name} order: upper end at or below the floor")
    every = "every pair: proven upper end" if pair else f"scope={profile.scope}: upper end"
    ax.plot(grid, np.where(upper > floor, upper, np.nan), "k--", lw=1, label=every)
    _on_floor(ax, grid, upper, floor, "k", f"{every} at or below the floor")
    lower, width = np.array([d.lower for d in found]), profile.abs_width
    loose = (upper > floor) & (upper <= width) & (upper - lower > profile.rel_width * lower)
    if loose.any():  # met by abs_width alone: the bound's floor, not δ
        ax.plot(grid[loose], upper[loose], "ko", mfc="none", ms=6, label=f"{every}: not narrowed below it")
    if width > floor:
        ax.axhline(width, color="0.5", ls="--", lw=0.8, label=f"bound's floor: abs_width={width:g}")
    for i, (label, values) in enumerate(curves.items()):
        ax.plot(grid, np.where(values > floor, values, np.nan), color=f"C{i + 2}", lw=1.2, ls="-.", label=label)
    ax.axhline(floor, color="0.5", ls=":", lw=1, label=f"axis floor {floor:.1e}: values at or below it, 0 too")
    ax.set_ylim(floor / 2, 1.5)
    ax.set_yscale("log")
    ax.set_xlabel("ε")
    ax.set_ylabel("δ(ε)")
    ax.set_title(profile.title)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    if path:
        (fig or ax.figure).savefig(path, dpi=120, bbox_inches="tight")
    return ax


def _on_floor(ax: Any, grid: np.ndarray, values: np.ndarray, floor: float, color: str, label: str) -> None:
    """Values at or below the axis floor of :func:`draw`, drawn on it as triangles pointing down."""
    low = values <= floor
    if low.any():
        ax.plot(grid[low], np.full(int(low.sum()), floor), "v", color=color, ms=5, ls="none", label=label)


class Plotted:
    """The ``plot`` method of a profile, one release or composed (mixed into their classes)."""

    def plot(
        self,
        eps: Sequence[float] | np.ndarray | None = None,
        *,
        ax: Any = None,
        path: str | None = None,
        others: Mapping[str, Callable[[np.ndarray], np.ndarray]] | None = None,
    ) -> Any:
        """``δ`` against ``ε`` on a log axis, each order's band: :func:`draw` (its parameters)."""
        return draw(self, eps, ax=ax, path=path, others=others)
