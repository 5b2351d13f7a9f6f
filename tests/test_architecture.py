"""The folder is the architecture: each layer of ``gpu_rs`` imports only from the layers below it.

Layers, lowest first (``gpu_rs/__init__.py`` has the reader's guide)::

    common < engine < pairs < quantities < calibration < cli

``reference`` (code kept for comparison and tests) may import the product up to ``quantities``;
nothing in the product imports ``reference``. Every import counts, also one inside a function,
and no two modules may import each other, directly or through others.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "gpu_rs"
LAYERS = ("common", "engine", "pairs", "quantities", "calibration", "cli")
REFERENCE = "reference"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every ``gpu_rs`` module ``path`` imports, at any depth of its code."""
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "gpu_rs")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            if module.split(".")[0] != "gpu_rs":
                continue
            found.add(module)
            for alias in node.names:  # ``from gpu_rs.engine import bounds`` imports a module
                if (PACKAGE.parent / module.replace(".", "/") / f"{alias.name}.py").exists():
                    found.add(f"{module}.{alias.name}")
    return found


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
GRAPH = {name: _imports(path) for name, path in MODULES.items()}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in (*LAYERS, REFERENCE)) else None


def test_every_module_lives_in_a_layer() -> None:
    loose = [m for m in MODULES if _layer(m) is None and m not in ("gpu_rs", "gpu_rs.__main__")]
    assert not loose, f"modules outside the layers: {loose}"
    unknown = {m.split(".")[1] for m in MODULES if m.count(".") >= 2} - {*LAYERS, REFERENCE}
    assert not unknown, f"subpackages not in the layer list: {unknown}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _layer(m) is not None))
def test_imports_go_down_only(module: str) -> None:
    own = _layer(module)
    assert own is not None
    for target in sorted(GRAPH[module]):
        other = _layer(target)
        if own == REFERENCE:
            allowed = other in (*LAYERS[: LAYERS.index("quantities") + 1], REFERENCE)
        elif other is None:  # the package itself (the public API): only the interface may use it
            allowed = own == "cli"
        elif other == REFERENCE:
            allowed = False
        else:
            allowed = LAYERS.index(other) <= LAYERS.index(own)
        assert allowed, f"{module} ({own}) imports {target} ({other or 'the public API'})"


def test_no_import_circle() -> None:
    edges = {m: {t for t in GRAPH[m] if t in MODULES and t != m} for m in MODULES}
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycle = [*path[path.index(nxt) :], nxt] if nxt in path else [node, nxt]
                pytest.fail("import circle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for module in sorted(m for m in edges if m != "gpu_rs"):
        if module not in state:
            visit(module, [module])


def test_modules_stay_small() -> None:
    """Outside the interface layer a module reads in one sitting (at most 300 lines)."""
    long = {m: n for m, p in MODULES.items() if _layer(m) != "cli" and (n := len(p.read_text().splitlines())) > 300}
    assert not long, f"modules over 300 lines: {long}"
