"""``ratio_distribution``: the bucketed pmf of ``R`` with certified ``sf``/``cdf`` bounds.

The Vaaler–Selberg bounds of :mod:`gpu_rs.engine.majorants` depend on the threshold
``α`` only through ``e^{±2πikα}``, so one FFT of length ``N`` gives them at all
``N`` thresholds ``α_j = j/N`` of the window at once.
"""

from __future__ import annotations

import csv
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpu_rs.common.backend import Backend, get_backend
from gpu_rs.common.floats import UNIT
from gpu_rs.common.serialize import ToDict
from gpu_rs.common.validation import Problem, check_int, check_open, check_real
from gpu_rs.engine import chernoff
from gpu_rs.engine.atoms import ONE, ZERO, record_atoms
from gpu_rs.engine.charfn import spectrum
from gpu_rs.engine.laws import SumLaw, restricted
from gpu_rs.engine.majorants import vaaler_weights
from gpu_rs.quantities.closed_forms import moments

FFT_ERROR_CONSTANT = 8.0
"""Assumed ``c`` in the componentwise FFT error bound ``c log2(N) u Σ|x|`` (see docs/certification.md)."""
OVERSAMPLE = 8


@dataclass(frozen=True, repr=False)
class RatioDistribution(ToDict):
    """The distribution of ``R = X/n`` on a grid of buckets.

    Attributes
    ----------
    values : ndarray
        Left edges of the buckets, in units of ``R``.
    probs : ndarray
        Point estimate of the mass of each bucket (differences of the midpoints
        of the certified ``sf`` bounds; not itself certified).
    sf_lower, sf_upper : ndarray
        Certified bounds on ``P[R > values[j]]``.
    mean, var : float
        Closed-form mean and variance of ``R`` (seed 003 §3.1).
    outside : float
        Certified bound on the mass outside the grid's window.
    """

    n: int
    bits: int
    q: float
    values: np.ndarray
    probs: np.ndarray
    sf_lower: np.ndarray
    sf_upper: np.ndarray
    mean: float
    var: float
    outside: float
    backend: str
    grid_points: int
    seconds: float

    @property
    def step(self) -> float:
        """Bucket width in units of ``R``."""
        return float(self.values[1] - self.values[0])

    def sf(self, x: float) -> tuple[float, float]:
        """Certified ``(lower, upper)`` bounds on ``P[R > x]`` (``x`` a number, not NaN)."""
        x = check_real("x", x)
        v = self.values
        if x < v[0]:
            return max(0.0, float(self.sf_lower[0])), 1.0
        j = int(np.searchsorted(v, x, side="right")) - 1
        upper = float(self.sf_upper[j])
        lower = float(self.sf_lower[j + 1]) if j + 1 < v.shape[0] else 0.0
        return max(0.0, lower), min(1.0, upper)

    def cdf(self, x: float) -> tuple[float, float]:
        """Certified ``(lower, upper)`` bounds on ``P[R <= x]``."""
        lo, hi = self.sf(x)
        return 1.0 - hi, 1.0 - lo

    def to_csv(self, path: str) -> None:
        """Write ``r, prob, sf_lower, sf_upper`` rows to ``path``."""
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["r", "prob", "sf_lower", "sf_upper"])
            for row in zip(self.values, self.probs, self.sf_lower, self.sf_upper, strict=True):
                w.writerow([repr(float(x)) for x in row])

    def plot(self, path: str | None = None, ax: Any = None, eps: float | None = None) -> Any:
        """Plot the pmf of ``R`` (needs matplotlib, the ``plot`` extra).

        Parameters
        ----------
        path : str, optional
            Save the figure there (PNG, PDF, … by extension).
        ax : matplotlib Axes, optional
            Draw into these axes instead of a new figure.
        eps : float, optional
            Mark the threshold ``e^eps``.
        """
        try:
            if ax is None and path is not None:
                # A bare Figure: no pyplot state, no change of the session's backend.
                from matplotlib.figure import Figure

                fig = Figure(figsize=(7, 4))
                ax = fig.subplots()
            elif ax is None:
                import matplotlib.pyplot as plt

                fig, ax = plt.subplots(figsize=(7, 4))
            else:
                fig = ax.figure
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("plot() needs matplotlib: pip install 'gpu-rs[plot]'") from exc
        ax.plot(self.values + 0.5 * self.step, self.probs, drawstyle="steps-mid", lw=1.2)
        if eps is not None:
            ax.axvline(math.exp(eps), color="C3", ls="--", lw=1, label=f"e^ε = {math.exp(eps):.4g}")
            ax.legend()
        ax.set_xlabel("privacy ratio R")
        ax.set_ylabel(f"P[R in bucket of width {self.step:.3g}]")
        ax.set_title(f"pmf of R: N = {self.n}, L = {self.bits}, q = {self.q:.4g}")
        if path is not None:
            fig.savefig(path, dpi=120, bbox_inches="tight")
        return ax

    def __repr__(self) -> str:
        return (
            f"RatioDistribution(n={self.n}, bits={self.bits}, q={self.q:.6g}, "
            f"R in [{self.values[0]:.6g}, {self.values[-1] + self.step:.6g}) in {self.values.shape[0]} buckets, "
            f"mean={self.mean:.6g}, var={self.var:.6g}, outside<={self.outside:.2e}; "
            f"{self.backend}, {self.grid_points} terms, {self.seconds:.3g} s)"
        )


def _full_law(prob: Problem) -> SumLaw:
    """The law of ``Y = X − n w_0`` with no atom removed."""
    zero, one = record_atoms(prob.bits, prob.q, ZERO), record_atoms(prob.bits, prob.q, ONE)
    if not np.isfinite(zero.gaps).all():
        raise ValueError(
            f"bits={prob.bits} with q={prob.q:g} has atoms (q/p)^-L beyond float64; use tail() for such cases"
        )
    keep = np.ones(prob.bits + 1, dtype=bool)
    parts = [
        (restricted(at.gaps, at.log_probs, at.probs, at.prob_error, at.exact, keep), c)
        for at, c in ((zero, prob.n - 1), (one, 1))
        if c > 0
    ]
    return SumLaw(tuple(parts))


def _complex(xp: Any, re: Any, im: Any) -> Any:
    return xp.astype(re, xp.complex128) + xp.astype(im, xp.complex128) * 1j


def sf_on_grid(be: Backend, law: SumLaw, a: float, period: float, buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """Certified bounds on ``P[U ∈ (j/buckets, 1)]`` for ``j = 0 … buckets − 1``, by FFT."""
    xp = be.xp
    size = OVERSAMPLE * buckets
    K = size - 1
    spec = spectrum(xp, law, a, period, 1, K + 1)
    _, b, c = vaaler_weights(xp, K, 1, K + 1)
    zero = xp.zeros((1,), dtype=xp.complex128)
    g = xp.concat([zero, _complex(xp, b * spec.re, -(b * spec.im))])
    h = xp.concat([zero, _complex(xp, c * spec.re, c * spec.im)])
    ev_alpha = -xp.imag(xp.fft.ifft(g) * size)
    ed_alpha = 1.0 + 2.0 * xp.real(xp.fft.fft(h))
    ev0 = -float(xp.sum(b * spec.im))
    ed0 = 1.0 + 2.0 * float(xp.sum(c * spec.re))
    alpha = xp.arange(0, size, dtype=xp.float64) / size
    base = (1.0 - alpha) + ev0 + ev_alpha
    kernel = (ed0 + ed_alpha) / (2.0 * K + 2.0)
    weight = 2.0 * b + 2.0 * c / (K + 1.0)
    fft_err = FFT_ERROR_CONSTANT * math.log2(size) * UNIT * float(xp.sum(weight * spec.modulus))
    term_err = float(xp.sum(weight * (spec.err + spec.modulus * (16.0 * UNIT))))
    roundoff = term_err + fft_err + 32.0 * UNIT
    upper = be.to_host(base + kernel)[::OVERSAMPLE] + roundoff
    lower = be.to_host(base - kernel)[::OVERSAMPLE] - roundoff
    return lower, upper


def ratio_distribution(
    n: int, bits: int, q: float, *, backend: str = "auto", buckets: int = 2048, tail_mass: float = 1e-12
) -> RatioDistribution:
    """The bucketed pmf of ``R`` with certified survival-function bounds.

    ``R = X/N`` under the seed's pair in the seed's order (``scope="forward"`` of
    :func:`gpu_rs.tail`): the law of one order of one pair, so it takes no ``scope``.
    For a guarantee over more pairs use :func:`gpu_rs.tail` with ``scope``.

    Parameters
    ----------
    n, bits, q
        See :func:`gpu_rs.tail`.
    backend : {"auto", "numpy", "cupy"}
        Array backend.
    buckets : int
        Number of buckets across the window, ``16 <= buckets <= 2**22``.
    tail_mass : float
        The window leaves at most this much mass (Chernoff) on each side.
    """
    start = time.perf_counter()
    prob = Problem(n, bits, q, 1.0)
    buckets = check_int("buckets", buckets, 16, 1 << 22)
    tail_mass = check_open("tail_mass", tail_mass, 0.0, 0.5)
    be = get_backend(backend)
    law = _full_law(prob)
    a = chernoff.lower_quantile(law, tail_mass)
    top = chernoff.upper_quantile(law, tail_mass)
    if top <= a:
        top = a + max(abs(a), 1.0) * 1e-6
    span = top - a
    step = span / buckets
    below, above = chernoff.lower_tail(law, a), chernoff.upper_tail(law, top)
    lower, upper = sf_on_grid(be, law, a, span, buckets)
    # P[Y > x_j] is P[U in (alpha_j, 1)] plus the mass above the window, less any aliased mass.
    # sf is non-increasing, so each bound also holds for every later (upper) or earlier
    # (lower) edge: take the running envelopes.
    sf_lo = np.maximum.accumulate(np.clip(lower - below - above, 0.0, None)[::-1])[::-1]
    sf_hi = np.minimum.accumulate(np.minimum(upper + above, 1.0))
    mid = 0.5 * (sf_lo + sf_hi)
    probs = mid - np.append(mid[1:], 0.5 * above)
    w0 = math.exp(record_atoms(prob.bits, prob.q).log_values[0])
    values = (a + step * np.arange(buckets)) / prob.n + w0
    mean, var = moments(prob.n, prob.bits, prob.q)
    return RatioDistribution(
        n=prob.n,
        bits=prob.bits,
        q=prob.q,
        values=values,
        probs=probs,
        sf_lower=sf_lo,
        sf_upper=sf_hi,
        mean=mean,
        var=var,
        outside=below + above,
        backend=be.name,
        grid_points=OVERSAMPLE * buckets - 1,
        seconds=time.perf_counter() - start,
    )
