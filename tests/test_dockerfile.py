"""The Dockerfile agrees with the package it installs.

No Docker engine is needed: the Dockerfile is parsed as text and checked against
``pyproject.toml`` and the CLI. Every extra it installs must exist in
``[project.optional-dependencies]``, its ENTRYPOINT must be a ``[project.scripts]``
name, its CMD must parse as a real ``gpu-rs`` subcommand, and the CPU test stage
must run the README's test command.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import importlib.util
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"


@dataclass
class Stage:
    """One ``FROM`` block: its base image (ARGs substituted), name and instructions."""

    image: str
    name: str | None
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def runs(self) -> list[str]:
        return [args for keyword, args in self.instructions if keyword == "RUN"]

    def last(self, keyword: str) -> str | None:
        found = [args for kw, args in self.instructions if kw == keyword]
        return found[-1] if found else None


def _logical_lines(text: str) -> list[str]:
    """Instructions with comments dropped and backslash continuations joined."""
    lines, current = [], ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if stripped.startswith("#") or not stripped:
            continue  # comment lines may sit inside a continuation too
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
        else:
            lines.append(current + stripped)
            current = ""
    if current:
        lines.append(current)
    return lines


def _substitute(text: str, args: dict[str, str]) -> str:
    return re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), m.group(0)), text)


def parse_dockerfile(text: str) -> list[Stage]:
    """The stages of a Dockerfile, in order."""
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for line in _logical_lines(text):
        keyword, _, rest = line.partition(" ")
        keyword, rest = keyword.upper(), rest.strip()
        if keyword == "ARG" and not stages:
            name, _, default = rest.partition("=")
            global_args[name.strip()] = default.strip().strip("\"'")
        elif keyword == "FROM":
            parts = [p for p in rest.split() if not p.startswith("--")]
            name = parts[2] if len(parts) >= 3 and parts[1].upper() == "AS" else None
            stages.append(Stage(_substitute(parts[0], global_args), name))
        else:
            assert stages, f"instruction before the first FROM: {line!r}"
            stages[-1].instructions.append((keyword, rest))
    return stages


def root_image(stages: list[Stage], stage: Stage) -> str:
    """The external image a stage is built on, following ``FROM <stage>`` chains."""
    by_name = {s.name: s for s in stages if s.name}
    seen = set()
    while stage.image in by_name and stage.image not in seen:
        seen.add(stage.image)
        stage = by_name[stage.image]
    return stage.image


def _commands(run: str) -> list[list[str]]:
    """The simple commands of a shell-form RUN, each split into words."""
    return [shlex.split(part) for part in re.split(r"&&|\|\||;|\|", run) if part.strip()]


def pip_extras(run: str) -> list[set[str]]:
    """Extras requested by each ``pip install`` in a RUN (``".[a,b]"`` gives ``{"a", "b"}``)."""
    found = []
    for words in _commands(run):
        names = {Path(w).name for w in words}
        if names & {"pip", "pip3"} and "install" in words:
            for word in words:
                m = re.fullmatch(r"[^\[\]\s]*\[([^\]]*)\]", word)
                if m:
                    found.append({e.strip() for e in m.group(1).split(",") if e.strip()})
    return found


def _exec_form(value: str | None, what: str) -> list[str]:
    assert value is not None, f"the final stage has no {what}"
    try:
        form = json.loads(value)
    except json.JSONDecodeError:
        pytest.fail(f"{what} should be in exec (JSON) form, got {value!r}")
    assert isinstance(form, list) and form and all(isinstance(x, str) for x in form), value
    return form


@pytest.fixture(scope="module")
def stages() -> list[Stage]:
    if not DOCKERFILE.exists():
        pytest.fail("no Dockerfile at the top level (SPEC §5)")
    return parse_dockerfile(DOCKERFILE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def project() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["project"]


def _stage(stages: list[Stage], name: str) -> Stage:
    named = [s for s in stages if s.name == name]
    assert named, f"no stage named {name!r}; stages: {[s.name for s in stages]}"
    return named[0]


def test_parser_on_a_small_example() -> None:
    text = (
        "# comment\nARG IMG=python:3.11-slim\nFROM ${IMG} AS one\n"
        'RUN pip install --upgrade pip \\\n    && pip install -e ".[test,plot]"\n'
        "FROM one AS two\nRUN echo '[x]' && python3 -m pip install 'pkg[gpu]' x.whl\n"
        'ENTRYPOINT ["tool"]\nCMD ["sub"]\n'
    )
    one, two = parse_dockerfile(text)
    assert (one.image, one.name, two.name) == ("python:3.11-slim", "one", "two")
    assert [e for run in one.runs() for e in pip_extras(run)] == [{"test", "plot"}]
    assert [e for run in two.runs() for e in pip_extras(run)] == [{"gpu"}]
    assert root_image([one, two], two) == "python:3.11-slim"
    assert two.last("CMD") == '["sub"]'


def test_multi_stage(stages: list[Stage]) -> None:
    assert len(stages) >= 2, "the Dockerfile should be multi-stage"
    final = stages[-1]
    image = root_image(stages, final)
    assert image.startswith("nvidia/cuda:") and "runtime" in image, (
        f"the default (last) stage should run on a CUDA runtime image, not {image!r}"
    )


def test_installed_extras_exist(stages: list[Stage], project: dict) -> None:
    defined = set(project.get("optional-dependencies", {}))
    installed = {extra for s in stages for run in s.runs() for extras in pip_extras(run) for extra in extras}
    assert installed, "found no `pip install .[extras]` in the Dockerfile"
    missing = installed - defined
    assert not missing, (
        f"the Dockerfile installs extras {sorted(missing)} that pyproject.toml does not define ({sorted(defined)})"
    )


def test_gpu_image_installs_gpu_extra(stages: list[Stage]) -> None:
    cuda = [s for s in stages if root_image(stages, s).startswith("nvidia/cuda:")]
    extras = {e for s in cuda for run in s.runs() for x in pip_extras(run) for e in x}
    assert {"gpu", "plot"} <= extras, f"the CUDA stages install extras {sorted(extras)}"


def test_entrypoint_is_a_console_script(stages: list[Stage], project: dict) -> None:
    entry = _exec_form(stages[-1].last("ENTRYPOINT"), "ENTRYPOINT")
    scripts = project.get("scripts", {})
    assert entry[0] in scripts, f"ENTRYPOINT {entry[0]!r} is not one of [project.scripts] {sorted(scripts)}"
    module, _, func = scripts[entry[0]].partition(":")
    if importlib.util.find_spec(module.split(".")[0]) is None:
        pytest.skip(f"{module} is not importable here")
    assert callable(getattr(importlib.import_module(module), func)), scripts[entry[0]]


def test_cmd_is_a_cli_subcommand(stages: list[Stage]) -> None:
    cmd = _exec_form(stages[-1].last("CMD"), "CMD")
    assert cmd[0] == "doctor"
    cli = importlib.import_module("gpu_rs.cli.main")
    parser = cli.build_parser()
    subcommands = {
        name for action in parser._actions if isinstance(action, argparse._SubParsersAction) for name in action.choices
    }
    assert cmd[0] in subcommands, f"CMD {cmd[0]!r} is not a gpu-rs subcommand: {sorted(subcommands)}"
    args = parser.parse_args(cmd)
    assert args.command == cmd[0]


def _readme_test_command() -> list[str] | None:
    """The arguments of the README's test command after the interpreter (e.g. ``-m pytest -q``)."""
    readme = ROOT / "README.md"
    if not readme.exists():
        return None
    fenced = False
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            continue
        try:
            commands = _commands(line)
        except ValueError:  # unbalanced quotes: not a shell line
            continue
        for words in commands:
            if len(words) >= 3 and Path(words[0]).name.startswith("python") and words[1:3] == ["-m", "pytest"]:
                return words[1:]
    return None


def test_cpu_stage_runs_the_readme_tests(stages: list[Stage]) -> None:
    stage = _stage(stages, "cpu-test")
    assert not root_image(stages, stage).startswith("nvidia/cuda:"), "the CPU test stage should not need CUDA"
    extras = {e for run in stage.runs() for x in pip_extras(run) for e in x}
    assert {"test", "plot"} <= extras, f"the cpu-test stage installs extras {sorted(extras)}"
    expected = _readme_test_command()
    if expected is None:
        pytest.skip("README.md has no `python -m pytest` command to compare with")
    commands = [
        words[1:]
        for run in stage.runs()
        for words in _commands(run)
        if words and Path(words[0]).name.startswith("python")
    ]
    assert expected in commands, (
        f"the cpu-test stage should run `python {' '.join(expected)}` as README.md does; it runs {commands}"
    )


def test_dockerignore() -> None:
    assert DOCKERIGNORE.exists(), "add a .dockerignore"
    patterns = [
        line.strip().removeprefix("**/").rstrip("/")
        for line in DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith(("#", "!"))
    ]
    for private in (".git", ".venv"):
        assert any(fnmatch.fnmatch(private, p) for p in patterns), f".dockerignore should exclude {private}"
    # The images build from, and test, these: they must reach the build context.
    needed = [
        "Dockerfile",
        ".dockerignore",
        "pyproject.toml",
        "README.md",
        "gpu_rs",
        "cpu_fallback",
        "tests",
        "notebooks",
    ]
    for name in needed:
        hits = [p for p in patterns if fnmatch.fnmatch(name, p)]
        assert not hits, f".dockerignore excludes {name} (pattern {hits[0]!r})"


def _distribution(requirement: str) -> str:
    """The distribution a requirement names, normalised (``"dp-accounting>=0.4"`` -> ``"dp-accounting"``)."""
    return re.split(r"[\s<>=!~\[;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_the_test_extra_installs_what_the_tests_import(project):
    """Every third-party module a test file imports at its top level is a dependency or in the
    ``test`` extra (issue 33: tests/test_extreme.py imported mpmath, which no extra named)."""
    import ast
    import sys
    from importlib.metadata import packages_distributions

    local = {p.stem for folder in ("tests", "scripts") for p in (ROOT / folder).glob("*.py")} | {
        "gpu_rs",
        "cpu_fallback",
        "benchmarks",
        "scripts",
        "tests",
    }
    declared = {_distribution(r) for r in [*project["dependencies"], *project["optional-dependencies"]["test"]]}
    owners = packages_distributions()
    missing = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                modules = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = {node.module.split(".")[0]}
            else:
                continue
            for module in sorted(modules - local - set(sys.stdlib_module_names)):
                if not {_distribution(d) for d in owners.get(module, [module])} & declared:
                    missing.append(f"{path.name}: {module}")
    assert missing == [], f"imported by tests but in neither the dependencies nor the test extra: {missing}"
