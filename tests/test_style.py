"""House rules that keep the code readable: ruff (lint and format) and mypy on the package,
module size, ``__all__`` and the README's examples. The tools come with the ``test`` extra;
where one is missing the test says so and skips."""

from __future__ import annotations

import doctest
import importlib.util
import inspect
import pathlib
import re
import subprocess
import sys

import pytest

import cpu_fallback
import gpu_rs

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ["gpu_rs", "cpu_fallback", "benchmarks", "scripts", "tests", "notebooks/build.py"]


def _tool(name: str) -> list[str]:
    if importlib.util.find_spec(name) is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return [sys.executable, "-m", name]


def _run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_lint() -> None:
    out = _run([*_tool("ruff"), "check", *PACKAGES])
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_format() -> None:
    out = _run([*_tool("ruff"), "format", "--check", *PACKAGES])
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.slow
def test_mypy() -> None:
    out = _run([*_tool("mypy")])
    assert out.returncode == 0, out.stdout + out.stderr


def test_engine_modules_are_small() -> None:
    """Each engine module fits in one sitting (issue 8: well under 250 lines)."""
    for path in sorted((ROOT / "gpu_rs" / "engine").glob("*.py")):
        lines = path.read_text(encoding="utf-8").count("\n")
        assert lines < 250, f"{path.relative_to(ROOT)} has {lines} lines"


def test_all_lists_the_public_api() -> None:
    public = {n for n, v in vars(gpu_rs).items() if not n.startswith("_") and not inspect.ismodule(v)}
    assert public <= set(gpu_rs.__all__), public - set(gpu_rs.__all__)  # names load on first use
    for name in gpu_rs.__all__:
        assert hasattr(cpu_fallback, name), name


def test_cpu_fallback_pins_every_backend_argument() -> None:
    for name in gpu_rs.__all__:
        obj = getattr(gpu_rs, name)
        if inspect.isfunction(obj) and "backend" in inspect.signature(obj).parameters:
            pinned = inspect.signature(getattr(cpu_fallback, name)).parameters["backend"]
            assert pinned.default == "numpy", name
            with pytest.raises(ValueError, match="backend"):
                getattr(cpu_fallback, name)(backend="cupy")


def _readme_examples() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    return "\n".join(b for b in blocks if b.lstrip().startswith(">>>"))


def test_readme_examples_run() -> None:
    """Every ``>>>`` example in the README runs and prints what the README shows."""
    source = _readme_examples()
    assert source.count(">>>") >= 3
    parser = doctest.DocTestParser()
    test = parser.get_doctest(source, {}, "README.md", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} README example(s) failed; see the output above"
