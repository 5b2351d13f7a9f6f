"""A curve of ``Y = Σ_{i<m} V_i`` (``V_i`` iid, finite atoms) whose rare heavy atoms would widen the window.

With heavy atoms ``H`` (probability ``p_H`` each record, ``J ~ Bin(m, p_H)`` heavy records) and
``Y = L_{m−J} + Z_J`` (``L_c`` the sum of ``c`` records conditioned light, ``Z_j`` of ``j``
conditioned heavy), for ``g`` any of ``P[· > y]``, ``E[(· − y)_+]``, ``E[(y − ·)_+]``:

    g_Y(y) = Σ_{j <= J_max} P(J = j) Σ_z P(Z_j = z) g_{L_{m−j}}(y − z)  +  rest,

each ``g_L`` from a narrow :class:`~gpu_rs.engine.curve.Curve` of the light records where
``y − z`` lies in its window, and in closed form beyond it (below the window
``E[(L − s)_+] = E L − s + E[(s − L)_+]`` with the last term at most ``s P[L <= s]``; above it
Chernoff). ``rest`` (``J > J_max``) lies in ``[0, P(J > J_max)]`` for the survival, in
``[0, E[Y 1{J > J_max}]]`` for the call (``<= m μ_L P(J > J_max) + μ_H E[J; J > J_max]``), and in
``[0, y P(J > J_max)]`` for the put. Configurations whose probability times their largest
possible value is below a small share of the width are bounded by that product.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from gpu_rs.common.binomial import log_pmf
from gpu_rs.common.floats import FLOOR, UNIT
from gpu_rs.engine import chernoff
from gpu_rs.engine.curve import Curve, Points, tail_mean
from gpu_rs.engine.laws import Law, SumLaw, restrict

MAX_HEAVY_MEAN = 1.0
"""Conditioning is used only where at most this many heavy records are expected."""
MAX_J = 8
MAX_CONFIGS = 200_000
"""Conditioning is used only where the multisets of at most ``MAX_J`` heavy atoms, each a curve evaluation,
number at most this (``C(h + MAX_J, MAX_J)`` for ``h`` heavy atoms: ``h <= 13``); many heavy atoms
(``L = 1024``: hundreds) would make billions."""
MIN_GAIN = 4.0
"""Conditioning is used only where it narrows the window at least this much."""
MIN_RECORDS = 64
"""Fewer records than this are left to one window (their sums are narrow anyway)."""
REST_SHARE = 1e-3
"""The mass of ``J > J_max`` and of pruned configurations may use this share of the width."""


def _span(law: SumLaw) -> float:
    return chernoff.upper_quantile(law, 1e-12) - chernoff.lower_quantile(law, 1e-12)


def _binomial_pmf(m: int, p: float, top: int) -> np.ndarray:
    j = np.arange(top + 2, dtype=np.float64)
    return np.where(j <= m, np.exp(log_pmf(m, j, math.log(p), math.log1p(-p))), 0.0)


class HeavyCurve:
    """``g_Y`` at many thresholds for ``m`` records of ``law``, the atoms ``heavy`` conditioned on."""

    def __init__(
        self, law: Law, m: int, heavy: np.ndarray, delta: float, value_error: float, max_terms: int, xp: Any
    ) -> None:
        self.m, self.value_error = m, value_error
        self.light, self.heavy = restrict(law, ~heavy), restrict(law, heavy)
        self.p_heavy = float(law.probs[heavy].sum())
        self.rel = 64.0 * UNIT * (abs(math.log(self.p_heavy)) + math.log(m + 1) + 4.0) * (MAX_J + 2) + 1e-12
        self.delta = delta
        self.max_terms, self.xp = max_terms, xp
        self.curves: dict[int, Curve] = {}
        self.sums: dict[int, SumLaw] = {}
        self.edges: dict[int, tuple[float, float, float]] = {}

    @staticmethod
    def split(law: Law, m: int, lowest: float) -> np.ndarray | None:
        """The heavy atoms (values above ``lowest / 16``), or None where conditioning would not pay."""
        heavy = law.values > lowest / 16.0
        few = int((~heavy).sum()) < 2 or not heavy.any()
        many = math.comb(int(heavy.sum()) + MAX_J, MAX_J) > MAX_CONFIGS
        if m < MIN_RECORDS or few or many or m * float(law.probs[heavy].sum()) > MAX_HEAVY_MEAN:
            return None
        full, light = SumLaw(((law, m),)), SumLaw(((restrict(law, ~heavy), m),))
        if _span(full) < MIN_GAIN * _span(light):
            return None
        return heavy

    def _light(self, j: int) -> tuple[SumLaw, Curve]:
        if j not in self.curves:
            law = SumLaw(((self.light, self.m - j),))
            self.sums[j] = law
            mid = law.mean
            self.curves[j] = Curve(law, mid, mid, self.delta, self.value_error, self.max_terms, self.xp)
        return self.sums[j], self.curves[j]

    def _configs(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """Values and conditional probabilities of ``Z_j`` (every multiset of ``j`` heavy atoms)."""
        vals, probs = self.heavy.values, self.heavy.probs
        out_v, out_p = [], []
        for combo in itertools.combinations_with_replacement(range(vals.shape[0]), j):
            c = np.bincount(np.array(combo, dtype=np.int64), minlength=vals.shape[0])
            log_p = math.lgamma(j + 1) - sum(math.lgamma(x + 1) for x in c) + float(c @ np.log(probs))
            out_v.append(float(c @ vals))
            out_p.append(math.exp(log_p))
        return np.array(out_v), np.array(out_p)

    def _edges(self, j: int) -> tuple[float, float, float]:
        """Chernoff bounds at the light window's edges: ``P[L <= a]``, ``P[L >= top]``, ``E[L; L >= top]``."""
        if j not in self.edges:
            law, curve = self._light(j)
            top = curve.a + curve.period
            self.edges[j] = (chernoff.lower_tail(law, curve.a), chernoff.upper_tail(law, top), tail_mean(law, top))
        return self.edges[j]

    def _outside(self, kind: str, j: int, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Closed-form bounds where the true threshold (in ``[lo, hi]``) lies outside the light window.

        Below it (``hi <= a``): ``P[L <= s] <= P[L <= a]``; above it (``lo >= a + P``):
        ``E[(L − s)_+] <= E[L; L >= a + P]``. Elsewhere the bounds are trivial (such points are
        evaluated on the curve).
        """
        law, curve = self._light(j)
        below_p, above_p, above_mean = self._edges(j)
        v = self.value_error + 4.0 * UNIT
        mean_lo, mean_hi = law.mean * (1.0 - v) * (1 - 1e-12), law.mean * (1.0 + v) * (1 + 1e-12)
        below, above = hi <= curve.a, lo >= curve.a + curve.period
        small = np.maximum(hi, 0.0) * below_p  # bounds E[(s − L)_+] below the window
        big = above_mean * (1.0 + v)
        if kind == "sf":
            g_lo = np.where(below, 1.0 - below_p, 0.0)
            g_hi = np.where(above, above_p, 1.0)
        elif kind == "call":
            g_lo = np.where(below, mean_lo - hi, 0.0)
            g_hi = np.where(below, mean_hi - lo + small, np.where(above, big, mean_hi + np.maximum(-lo, 0.0)))
        else:
            g_lo = np.where(above, lo - mean_hi, 0.0)
            g_hi = np.where(below, small, np.where(above, hi - mean_lo + big, np.maximum(hi, 0.0)))
        return np.maximum(g_lo, 0.0), g_hi

    def _rest(self, kind: str, ys: np.ndarray, pj: np.ndarray, budget: np.ndarray) -> tuple[int, np.ndarray]:
        """``J_max`` and the bound on the configurations with more heavy records."""
        mu_l, mu_h = float(self.light.mean) * (1 + 1e-9), float(self.heavy.mean) * (1 + 1e-9)
        j_max = 0
        while True:
            tail_p = max(0.0, 1.0 - float(pj[: j_max + 1].sum())) * (1 + 1e-9) + 1e-15
            # E[J; J > J_max]: the pmf summed to MAX_J + 1, the rest at most (MAX_J + 2) P(J > MAX_J + 1)
            tail_j = float(np.dot(pj[j_max + 1 :], np.arange(j_max + 1, pj.shape[0]))) + tail_p * (pj.shape[0] + 1)
            rest = {"sf": tail_p * np.ones_like(ys), "put": np.maximum(ys, 0.0) * tail_p}.get(
                kind, (self.m * mu_l * tail_p + mu_h * tail_j) * np.ones_like(ys)
            )
            if j_max >= MAX_J or np.all(rest <= budget):
                return j_max, rest
            j_max += 1

    def evaluate(self, kind: str, ys: np.ndarray, errors: np.ndarray, targets: np.ndarray) -> Points:
        """Bounds on ``g_Y`` at ``ys`` (see the module docstring), each aiming at its ``targets`` width."""
        n_pts = ys.shape[0]
        lower, upper = np.zeros(n_pts), np.zeros(n_pts)
        disc, trunc, rnd = np.zeros(n_pts), np.zeros(n_pts), np.zeros(n_pts)
        pj = _binomial_pmf(self.m, self.p_heavy, MAX_J + 1)
        j_max, rest = self._rest(kind, ys, pj, REST_SHARE * targets)
        upper += rest
        trunc += rest
        configs = [self._configs(j) if j > 0 else (np.zeros(1), np.ones(1)) for j in range(j_max + 1)]
        share = REST_SHARE * float(np.min(targets)) / sum(z.shape[0] for z, _ in configs)
        terms = memory = 0
        for j, (z, pz) in enumerate(configs):
            law, curve = self._light(j)
            w_hi = float(pj[j]) * pz * (1.0 + self.rel)
            w_lo = float(pj[j]) * pz * (1.0 - self.rel)
            for c in range(z.shape[0]):
                largest = {"sf": 1.0, "call": law.mean * 1.01 + z[c], "put": max(0.0, float(ys.max()))}[kind]
                if w_hi[c] * largest <= share:  # pruned: bounded by its probability times its largest value
                    upper += w_hi[c] * largest
                    trunc += w_hi[c] * largest
                    continue
                s = ys - z[c]
                lo, hi = curve.ends(s, errors)
                inside = (lo > curve.a) & (hi < curve.a + curve.period)
                g_lo, g_hi = self._outside(kind, j, lo, hi)
                if inside.any():
                    want = np.maximum(0.5 * targets[inside] / max(w_hi[c], FLOOR), FLOOR)
                    found = curve.evaluate(kind, s[inside], errors[inside], want)
                    g_lo[inside], g_hi[inside] = found.lower, found.upper
                    d = np.zeros(n_pts)
                    d[inside] = found.discretization
                    disc += w_hi[c] * d
                    terms, memory = max(terms, found.terms), max(memory, found.memory)
                lower += w_lo[c] * g_lo
                upper += w_hi[c] * g_hi
                rnd += (w_hi[c] - w_lo[c]) * g_hi
        spent = disc + trunc + rnd
        rnd += np.maximum(0.0, (upper - lower) - spent)
        return Points(lower, upper, disc, trunc, rnd, terms, memory)
