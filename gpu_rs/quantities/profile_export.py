"""A certified privacy profile handed to dp_accounting as a pessimistic privacy loss distribution.

A privacy loss distribution (PLD) stands for a pair of laws through its hockey-stick curve
``δ(ε) = Σ_s (P(s) − e^ε Q(s))_+`` at every real ``ε``; dp_accounting composes PLDs by
convolving their loss pmfs. :func:`to_dp_accounting` builds, for each order of the pair, the
pessimistic *connect-the-dots* pmf (Doroshenko, Ghazi, Kamath, Kumar and Manurangsi,
"Connect the Dots: Tighter Discrete Approximations of Privacy Loss Distributions", PETS 2022,
Algorithm 1: ``pld_pmf.create_pmf_pessimistic_connect_dots``) from *certified upper* values
``u_i >= δ(ε_i)`` on a grid of multiples of the discretization. The curve of that pmf is
above the true ``δ`` at every real ``ε`` (docs/profile-export.md), so ``get_epsilon_for_delta``
is never below the true ``ε(δ)`` and every composition it enters stays an upper bound.

Each ``u_i`` is padded to ``(1 + w) u_i`` (``w`` the profile's ``rel_width``), so that the
export is never below our certified *upper* ``δ`` either, between grid points too: where an
evaluation meets its width, ``upper <= (1 + w) lower <= (1 + w) δ``, and the padded chord is
``(1 + w)`` times a chord above the convex ``δ``. So ``get_epsilon_for_delta`` is at least
the root ``inf{ε : our certified upper δ(ε) <= δ}``, which ``epsilon(δ).upper`` brackets from
above (within ``eps_tol``). For ``scope="all"`` at several bits the upper end is the proven
clone bound, not a convex curve met to the width, and only the first guarantee holds: its values are
not padded (the pad would only loosen every composition, by more the coarser the width). Why the
curve is above the true ``δ``:

- ``δ`` is convex in ``λ = e^ε`` (a supremum of the affine maps ``P(S) − λ Q(S)``), and the
  pmf's curve is linear in ``λ`` between grid points and equal to ``u_i`` on them: a chord
  through points above a convex curve stays above it (also across ``ε = 0``, which is not a
  grid point: the profile is certified for ``ε > 0``);
- above the last point the curve is the infinity mass ``u_m >= δ(ε_m) >= δ(ε)``;
- the grid is symmetric, negative ``ε`` read from the other order,
  ``δ_{P‖Q}(−t) = 1 − e^{−t} + e^{−t} δ_{Q‖P}(t)``; below the first point ``−t_m`` the curve
  is ``1 − λ (1 − u_{Q‖P}(t_m))``, above the true ``1 − λ (1 − δ_{Q‖P}(−ε))``;
- the values handed over are the greatest convex minorant in ``λ`` of the points
  (:func:`gpu_rs.pairs.profile_grid.convex`): still above the convex ``δ``, and one pair's curve, so
  the pmf's masses are nonnegative and sum to 1 (raw upper ends under ``scope="all"``, the least of
  several bounds, are not convex; their masses summed past 1 and composed to nonsense).

``pmf_remove`` is the seed's order ``δ_{P‖Q}`` (``P`` the law under ``D_m``), ``pmf_add`` the
reverse ``δ_{Q‖P}``; ``get_epsilon_for_delta`` takes the larger. With ``scope="all"`` both
carry the proven upper end, which covers every neighbouring pair in either order.
dp_accounting's own float arithmetic on the pmf is not certified by gpu_rs.
"""

from __future__ import annotations

from typing import Any

from gpu_rs.pairs.profile_grid import export_grid


def to_dp_accounting(profile: Any, **options: Any) -> Any:
    """A pessimistic ``dp_accounting`` ``PrivacyLossDistribution`` of ``profile`` (module docstring).

    Parameters
    ----------
    profile : PrivacyProfile or ComposedProfile
        With ``scope="homogeneous"`` (the two orders of the seed's pair) or ``"all"``.
    points : int
        Grid points with ``ε > 0``, ``2 <= points <= 100_000``, evenly spaced on ``(0, eps_max]``.
    eps_max : float, optional
        The last grid point; by default the first ``ε₀ 2^−j`` where the certified upper ``δ``
        is at most ``delta_floor`` (``ε₀ = profile.eps_top``, beyond which ``δ = 0``). Its
        ``δ`` becomes the infinity mass.
    discretization : float
        dp_accounting's ``value_discretization_interval``, ``0 < discretization < 1``; PLDs
        compose only with the same value (dp_accounting's default is ``1e-4``).
    delta_floor : float
        See ``eps_max``.

    Returns
    -------
    dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution
        ``pmf_remove`` for ``δ_{P‖Q}``, ``pmf_add`` for ``δ_{Q‖P}``.
    """
    try:
        from dp_accounting.pld import pld_pmf
        from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("to_dp_accounting needs dp_accounting: pip install 'gpu_rs[accounting]'") from exc
    grid = export_grid(profile, **options)
    return PrivacyLossDistribution(
        pld_pmf.create_pmf_pessimistic_connect_dots(grid.discretization, *grid.remove),
        pld_pmf.create_pmf_pessimistic_connect_dots(grid.discretization, *grid.add),
    )
