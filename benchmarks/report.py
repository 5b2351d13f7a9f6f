"""Tables as aligned plain text and as Markdown, plus the machine description."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from typing import Any


def fmt_bytes(b: int | None) -> str:
    if b is None:
        return "—"
    if b < 0:
        return "?"
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= size:
            return f"{b / size:.1f} {unit}"
    return f"{b} B"


def fmt_s(s: float | None) -> str:
    if s is None:
        return "—"
    if s < 0.01:
        return f"{s * 1e3:.2f} ms"
    if s < 100:
        return f"{s:.3g} s"
    return f"{s:.0f} s"


def fmt_p(p: float | None, digits: int = 6) -> str:
    if p is None:
        return "—"
    if p == 0:
        return "0"
    return f"{p:.{digits}e}"


def fmt_g(x: float | None, digits: int = 3) -> str:
    if x is None:
        return "—"
    return f"{x:.{digits}g}"


class Table:
    """A titled table of strings."""

    def __init__(self, title: str, headers: Sequence[str], notes: Sequence[str] = ()) -> None:
        self.title = title
        self.headers = list(headers)
        self.rows: list[list[str]] = []
        self.notes = list(notes)

    def add(self, row: Sequence[Any]) -> None:
        self.rows.append([str(c) for c in row])

    def text(self) -> str:
        cols = [self.headers, *self.rows]
        widths = [max(len(r[i]) for r in cols) for i in range(len(self.headers))]
        line = "  ".join("-" * w for w in widths)
        out = [self.title, "=" * len(self.title)]
        out.append("  ".join(h.ljust(w) for h, w in zip(self.headers, widths, strict=False)).rstrip())
        out.append(line)
        for r in self.rows:
            out.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip())
        out.extend(self.notes)
        return "\n".join(out)

    def markdown(self) -> str:
        def esc(s: str) -> str:
            return s.replace("|", "\\|")

        out = [f"### {self.title}", ""]
        out.append("| " + " | ".join(esc(h) for h in self.headers) + " |")
        out.append("|" + "|".join("---" for _ in self.headers) + "|")
        for r in self.rows:
            out.append("| " + " | ".join(esc(c) for c in r) + " |")
        if self.notes:
            out.append("")
            out.extend(f"{n}  " for n in self.notes)
        return "\n".join(out)


def _run(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def engine_fingerprint() -> str:
    """Short SHA-256 of the ``gpu_rs`` sources, to tell which engine a run measured."""
    import hashlib

    try:
        import gpu_rs

        root = os.path.dirname(os.path.abspath(gpu_rs.__file__))
        h = hashlib.sha256()
        for name in sorted(os.listdir(root)):
            if name.endswith(".py"):
                h.update(name.encode())
                with open(os.path.join(root, name), "rb") as fh:
                    h.update(fh.read())
        return h.hexdigest()[:12]
    except Exception:  # pragma: no cover
        return "?"


def git_state() -> str:
    """``HEAD`` commit of the checkout holding ``gpu_rs``, marked ``+dirty`` with uncommitted changes."""
    try:
        import gpu_rs

        root = os.path.dirname(os.path.dirname(os.path.abspath(gpu_rs.__file__)))
    except Exception:  # pragma: no cover
        return "?"
    head = _run(["git", "-C", root, "rev-parse", "--short", "HEAD"])
    if not head:
        return "not a git checkout"
    dirty = _run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no", "--", "gpu_rs"])
    return head + ("+dirty (uncommitted changes in gpu_rs/)" if dirty else "")


def machine() -> dict[str, str]:
    """CPU, memory, versions and date of this run."""
    import numpy
    import scipy

    cpu = ""
    lscpu = _run(["lscpu"])
    for line in lscpu.splitlines():
        if line.startswith("Model name:"):
            cpu = line.split(":", 1)[1].strip()
    if not cpu:
        cpu = platform.processor() or platform.machine()
    mem = ""
    try:
        with open("/proc/meminfo") as fh:
            kb = int(fh.readline().split()[1])
        mem = f"{kb / 2**20:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    try:
        import gpu_rs

        version = gpu_rs.__version__
    except Exception:  # pragma: no cover
        version = "?"
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "memory": mem,
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "gpu_rs": version,
        "git": git_state(),
        "engine_sha256": engine_fingerprint(),
    }
