"""What a calibration returns: the calibrated ``q``, how it was found, and what it costs in precision."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from gpu_rs.common.serialize import ToDict
from gpu_rs.quantities.profile_results import DeltaBound
from gpu_rs.quantities.results import TailBound


@dataclass(frozen=True, kw_only=True)
class CalibrationResult(ToDict):
    """The fields every calibration has, whatever its target.

    ``q`` is certified (its certified value is within the target) and ``q − q_tol`` was
    checked and does not certify; ``q_tol`` is absolute (``q_rtol · min(q, 1/2 − q)`` by
    default). ``sigma_*`` are the standard deviations of a count estimate over ``n`` reports
    (seed 003 §4) at each flip probability.

    Attributes
    ----------
    n, bits, eps, k : int, int, float, int
        The setting: users, bits per report, privacy level, reports per user.
    q, q_tol : float
        The calibrated flip probability and the absolute tolerance reached: ``q − q_tol`` does not certify.
    q_rtol : float or None
        The relative tolerance asked (``q_tol = q_rtol · min(q, 1/2 − q)``), or None where an absolute
        ``q_tol`` was given.
    scope, guarantee : str
        The pairs the calibrated ``q`` protects (SPEC §1.1), in a word and in a sentence.
    steps : list of dict
        Every certified value computed, in order (``q``, ``lower``, ``upper``, ``seconds``, ``phase``).
    monotone : bool
        False if two queried points show the value rising with ``q``; ``violations`` lists them.
    local_dp_q : float
        The flip probability of ε-local DP for one report, for comparison.
    sigma_calibrated, sigma_local_dp : float
        ``σ(d̂)`` at the calibrated and at the local-DP ``q``.
    backend, seconds, notes, provenance
        The array backend that ran, wall time, remarks of the search, versions and arguments.
    """

    n: int
    bits: int
    eps: float
    k: int = 1
    q: float
    q_tol: float
    q_rtol: float | None = None
    scope: str
    guarantee: str
    steps: list[dict[str, Any]]
    monotone: bool
    violations: list[dict[str, float]]
    local_dp_q: float
    sigma_calibrated: float
    sigma_local_dp: float
    backend: str
    seconds: float
    notes: list[str] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict, compare=False)

    def _claim(self) -> str:
        """The certified statement at ``q``, for ``repr``."""
        raise NotImplementedError

    def _extra(self) -> str:
        """What a subclass adds to ``repr``."""
        return ""

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(q={self.q:.8g} for {self._claim()}; n={self.n}, bits={self.bits}, "
            f"scope={self.scope!r}{self._extra()}; local DP q={self.local_dp_q:.6g}; "
            f"{len(self.steps)} steps, {self.seconds:.3g} s"
            f"{'' if self.monotone else '; MONOTONICITY VIOLATED near q'})"
        )


@dataclass(frozen=True, kw_only=True)
class Calibration(CalibrationResult):
    """Calibration to sufficient DP: certified ``P[R > e^eps] <= eta`` at ``q`` (``at_q.upper <= eta``).

    Attributes
    ----------
    eta : float
        The target tail.
    at_q : TailBound
        The certified tail at ``q`` (the key ``at_q`` of :class:`ProfileCalibration` too; ``tail`` is
        an alias kept for code written before JSON schema 1).
    three_sigma_q, three_sigma_tail, sigma_three_sigma
        The seed's 3σ rule's ``q``, its certified tail and ``σ(d̂)`` (``None`` where the rule has no solution).
    """

    eta: float
    at_q: TailBound
    three_sigma_q: float | None
    three_sigma_tail: TailBound | None
    sigma_three_sigma: float | None

    @property
    def tail(self) -> TailBound:
        """Alias of :attr:`at_q` (its name before JSON schema 1; not in ``to_dict()``)."""
        return self.at_q

    def _claim(self) -> str:
        return (
            f"P[R > {math.exp(self.eps):.6g}] <= {self.eta:g}: tail in [{self.at_q.lower:.6e}, {self.at_q.upper:.6e}]"
        )

    def _extra(self) -> str:
        if self.three_sigma_tail is None or self.three_sigma_q is None:
            return "; 3σ rule: no solution"
        return (
            f"; 3σ rule q={self.three_sigma_q:.6g} (tail in [{self.three_sigma_tail.lower:.3e}, "
            f"{self.three_sigma_tail.upper:.3e}])"
        )


@dataclass(frozen=True, kw_only=True)
class ProfileCalibration(CalibrationResult):
    """Calibration to (ε, δ)-DP: certified ``δ(eps) <= delta`` at ``q`` (``at_q.upper <= delta``), so ``ε(δ) <= eps``.

    Attributes
    ----------
    delta : float
        The target ``δ``.
    at_q : DeltaBound
        The certified ``δ(eps)`` at ``q`` (after every release).
    releases : int
        Independent releases composed (:func:`gpu_rs.compose`); 1: one.
    """

    delta: float
    at_q: DeltaBound
    releases: int = 1

    def _claim(self) -> str:
        after = f" after {self.releases} releases" if self.releases > 1 else ""
        return (
            f"delta({self.eps:.6g}){after} <= {self.delta:g}: delta in [{self.at_q.lower:.6e}, {self.at_q.upper:.6e}]"
        )
