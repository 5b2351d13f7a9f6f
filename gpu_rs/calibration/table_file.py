"""The file of a calibration table: one row per line, appended and flushed as each row ends.

CSV (``.csv``) or JSON lines (``.jsonl``/``.json``). A row is written with one ``write`` and
flushed, so a run stopped at any moment (Ctrl-C, a killed process) leaves complete rows and
at most one incomplete last line, which the next run drops before appending. A row is known
by its :data:`KEY` columns; rows already in the file are not computed again.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from typing import IO, Any

KEY = ("n", "bits", "eps", "eta", "delta", "k", "scope")
"""The columns that name a row: its setting."""
COLUMNS = (
    *KEY,
    "ratio",
    "q",
    "lower",
    "upper",
    "q_tol",
    "queries",
    "monotone",
    "seconds",
    "error",
)
"""Every column, in the order written."""
_INTS = ("n", "bits", "k", "queries")
_FLOATS = ("eps", "eta", "delta", "ratio", "q", "lower", "upper", "q_tol", "seconds")


def file_format(path: str) -> str:
    """``"csv"`` or ``"jsonl"``, from the file name; ValueError otherwise."""
    lower = path.lower()
    if lower.endswith(".csv"):
        return "csv"
    if lower.endswith((".jsonl", ".json")):
        return "jsonl"
    raise ValueError(f"out must end in .csv, .jsonl or .json: got {path!r}")


def row_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """The setting of a row, comparable between a row computed now and one read back."""
    return tuple(None if row.get(c) in (None, "") else (str(row[c]) if c == "scope" else float(row[c])) for c in KEY)


def read_rows(path: str) -> list[dict[str, Any]]:
    """The complete rows of ``path`` (none if it does not exist); an incomplete last line is cut off the file."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    if file_format(path) == "jsonl":
        return [_typed(json.loads(line)) for line in text.splitlines() if line.strip()]
    return [_typed(row) for row in csv.DictReader(io.StringIO(text))]


def _typed(row: dict[str, Any]) -> dict[str, Any]:
    """Numbers back from text (CSV), empty cells as None."""
    out: dict[str, Any] = {}
    for c in COLUMNS:
        v = row.get(c)
        if v in (None, ""):
            out[c] = None
        elif c in _INTS:
            out[c] = int(v)
        elif c in _FLOATS:
            out[c] = float(v)
        elif c == "monotone":
            out[c] = v if isinstance(v, bool) else str(v) == "True"
        else:
            out[c] = v
    return out


class RowWriter:
    """Appends rows to ``path`` (a header first if the file is new), each flushed at once."""

    def __init__(self, path: str) -> None:
        self.format = file_format(path)
        fresh = not os.path.exists(path) or os.path.getsize(path) == 0
        self.file: IO[str] = open(path, "a", encoding="utf-8", newline="")  # noqa: SIM115 (closed by close())
        if fresh and self.format == "csv":
            self._write(",".join(COLUMNS) + "\r\n")

    def write(self, row: dict[str, Any]) -> None:
        if self.format == "jsonl":
            self._write(json.dumps({c: _plain(row.get(c)) for c in COLUMNS}) + "\n")
            return
        buf = io.StringIO()
        csv.writer(buf).writerow(["" if row.get(c) is None else _cell(row[c]) for c in COLUMNS])
        self._write(buf.getvalue())

    def _write(self, text: str) -> None:
        self.file.write(text)
        self.file.flush()
        os.fsync(self.file.fileno())

    def close(self) -> None:
        self.file.close()


def _plain(v: Any) -> Any:
    return None if isinstance(v, float) and not math.isfinite(v) else v


def _cell(v: Any) -> str:
    return repr(v) if isinstance(v, float) else str(v)


def markdown(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table (the columns that are not empty in every row)."""
    shown = [c for c in COLUMNS if any(r.get(c) is not None for r in rows)]
    lines = ["| " + " | ".join(shown) + " |", "|" + "---|" * len(shown)]
    for r in rows:
        cells = []
        for c in shown:
            v = r.get(c)
            cells.append("" if v is None else f"{v:.8g}" if isinstance(v, float) else str(v).replace("|", "/"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
