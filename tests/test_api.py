"""API contract checks: cpu_fallback parity, backend selection, memory planning, JSON."""

from __future__ import annotations

import inspect
import json
import math
import subprocess
import sys

import pytest

import cpu_fallback
import gpu_rs
from gpu_rs.common.backend import cupy_available, resolve_backend


@pytest.mark.parametrize("name", ["tail", "calibrate", "ratio_distribution", "moments", "three_sigma_q", "table"])
def test_cpu_fallback_has_the_same_signatures(name):
    a = inspect.signature(getattr(gpu_rs, name))
    b = inspect.signature(getattr(cpu_fallback, name))
    assert list(a.parameters) == list(b.parameters)
    for p, r in zip(a.parameters.values(), b.parameters.values(), strict=False):
        if p.name != "backend":
            assert p.default == r.default and p.kind == r.kind


def test_cpu_fallback_gives_the_numpy_results():
    args = (3000, 5, 0.2109)
    a = gpu_rs.tail(*args, ratio=2.0, backend="numpy", scope="forward")
    b = cpu_fallback.tail(*args, ratio=2.0, scope="forward")
    assert (a.lower, a.upper, a.method) == (b.lower, b.upper, b.method)
    assert b.backend == "numpy"
    d1 = gpu_rs.ratio_distribution(*args, backend="numpy")
    d2 = cpu_fallback.ratio_distribution(*args)
    assert (d1.sf_upper == d2.sf_upper).all() and (d1.sf_lower == d2.sf_lower).all()
    with pytest.raises(ValueError, match="backend"):
        cpu_fallback.tail(*args, ratio=2.0, backend="cupy", scope="forward")


def test_cpu_fallback_never_imports_cupy():
    code = (
        "import sys, cpu_fallback; cpu_fallback.tail(1000, 5, 0.2446, ratio=2.0, scope='forward'); "
        "cpu_fallback.ratio_distribution(1000, 5, 0.2446); "
        "sys.exit(1 if 'cupy' in sys.modules else 0)"
    )
    env = {"GPU_RS_BACKEND": "cupy", "PATH": "/usr/bin:/bin"}
    assert subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0


def test_environment_variable_overrides_auto(monkeypatch):
    monkeypatch.setenv("GPU_RS_BACKEND", "numpy")
    assert resolve_backend("auto") == "numpy"
    assert gpu_rs.tail(1000, 5, 0.2446, ratio=2.0, scope="forward").backend == "numpy"
    monkeypatch.setenv("GPU_RS_BACKEND", "tpu")
    with pytest.raises(ValueError, match="GPU_RS_BACKEND"):
        gpu_rs.tail(1000, 5, 0.2446, ratio=2.0, scope="forward")


@pytest.mark.skipif(cupy_available(), reason="a CUDA device is usable here")
def test_cupy_without_a_device_is_a_clear_error():
    with pytest.raises(ValueError, match="cupy"):
        gpu_rs.tail(1000, 5, 0.2446, ratio=2.0, backend="cupy", scope="forward")


def test_work_that_does_not_fit_is_refused_up_front():
    with pytest.raises(gpu_rs.MemoryBudgetError, match=r"max_memory must allow at least .* MiB"):
        gpu_rs.tail(1000, 5, 0.2446, ratio=2.0, backend="numpy", max_memory=10_000, scope="forward")
    b = gpu_rs.tail(1000, 5, 0.2446, ratio=2.0, backend="numpy", max_memory=64 << 20, scope="forward")
    assert 0 < b.memory_bytes <= 64 << 20


def test_a_small_term_budget_is_honest_about_the_width():
    b = gpu_rs.tail(1000, 5, 0.2446, ratio=2.0, backend="numpy", max_terms=2048, rel_width=1e-6, scope="forward")
    assert not b.met and b.lower <= 0.0070676216237 <= b.upper
    assert "NOT MET" in repr(b)


def test_results_serialize_to_json():
    c = gpu_rs.calibrate(1000, 5, math.log(2), 0.01, backend="numpy", q_tol=1e-4, scope="forward")
    d = json.loads(json.dumps(c.to_dict()))
    assert d["q"] == c.q and d["at_q"]["upper"] <= 0.01
    assert set(d) >= {"q", "at_q", "three_sigma_q", "three_sigma_tail", "local_dp_q", "sigma_calibrated", "monotone"}
    r = gpu_rs.ratio_distribution(1000, 5, 0.2446, backend="numpy", buckets=64)
    assert len(json.loads(json.dumps(r.to_dict()))["values"]) == 64
