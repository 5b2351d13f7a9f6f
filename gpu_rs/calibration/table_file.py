"""The file of a calibration table: one row per line, appended and flushed as each row ends.

CSV (``.csv``), JSON lines (``.jsonl``: one JSON object per row) or one JSON document
(``.json``: ``{"schema": ..., "rows": [...]}``, rewritten whole and renamed into place after
each row). A row is written with one ``write`` and flushed, so a run stopped at any moment
(Ctrl-C, a killed process) leaves complete rows and at most one incomplete last line, which the
next run drops before appending. A row is known by its :data:`KEY` columns, its setting and every
option that changes its numbers; rows already in the file are not computed again. A file that is
not a table of this :data:`~gpu_rs.common.provenance.SCHEMA` (another header, a line that is not
a row) is refused before any work, never appended to.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from typing import IO, Any, cast

from gpu_rs.common.provenance import SCHEMA, versioned
from gpu_rs.common.serialize import plain

KEY = ("n", "bits", "eps", "eta", "delta", "k", "scope", "q_tol", "rel_width")
"""The columns that name a row: its setting and the options that change its numbers."""
COLUMNS = (
    "n",
    "bits",
    "eps",
    "eta",
    "delta",
    "k",
    "scope",
    "ratio",
    "q",
    "lower",
    "upper",
    "q_tol",
    "rel_width",
    "queries",
    "monotone",
    "seconds",
    "error",
    "provenance",
)
"""Every column, in the order written (``provenance``: versions, backend, time, as JSON)."""
_INTS = ("n", "bits", "k", "queries")
_FLOATS = ("eps", "eta", "delta", "ratio", "q", "lower", "upper", "q_tol", "rel_width", "seconds")
_FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".json": "json"}


def file_format(path: str) -> str:
    """``"csv"``, ``"jsonl"`` or ``"json"``, from the file name; ValueError otherwise."""
    kind = _FORMATS.get(os.path.splitext(path)[1].lower())
    if kind is None:
        raise ValueError(f"out must end in .csv, .jsonl or .json: got {path!r}")
    return kind


def row_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """The setting of a row, comparable between a row computed now and one read back."""
    return tuple(None if row.get(c) in (None, "") else (str(row[c]) if c == "scope" else float(row[c])) for c in KEY)


def check_file(path: str, name: str = "out") -> None:
    """Refuse, naming ``name``, a file that is not a table of this schema (a new or empty file is one)."""
    _rows(_text(path, name), file_format(path), path, name)


def read_rows(path: str, name: str = "out") -> list[dict[str, Any]]:
    """The complete rows of ``path`` (none if it does not exist); an incomplete last line is cut off the file.

    Raises ValueError, naming ``name``, if the file is not a table of this schema.
    """
    text, kind = _text(path, name), file_format(path)
    if text and not text.endswith("\n") and kind != "json":
        text = text[: text.rfind("\n") + 1]
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    return _rows(text, kind, path, name)


def _text(path: str, name: str) -> str:
    if not os.path.exists(path):
        return ""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"{name} must be a readable table file: {path!r} cannot be read ({err})") from None


def _rows(text: str, kind: str, path: str, name: str) -> list[dict[str, Any]]:
    """The typed rows of a table file's ``text``; ValueError naming ``name`` if it is not one."""

    def foreign(why: str) -> ValueError:
        return ValueError(
            f"{name} must be a new file or a gpu_rs table (schema {SCHEMA}) to add rows to: {path!r} {why}; "
            "give another file name"
        )

    if not text.strip():
        return []
    if kind == "csv":
        header = text.splitlines()[0]
        if header != ",".join(COLUMNS):
            raise foreign(f"has the header {header[:100]!r}, not {','.join(COLUMNS)!r}")
        return [_typed(row) for row in csv.DictReader(io.StringIO(text))]
    try:
        if kind == "json":
            document = json.loads(text)
            ok = isinstance(document, dict) and document.get("schema") == SCHEMA
            records = document.get("rows") if ok else None
        else:
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
            if not all(isinstance(r, dict) and r.get("schema") == SCHEMA for r in records):
                records = None
    except json.JSONDecodeError as err:
        raise foreign(f"is not JSON ({err})") from None
    if not isinstance(records, list) or not all(isinstance(r, dict) and set(COLUMNS) <= r.keys() for r in records):
        raise foreign(f"does not hold table rows of schema {SCHEMA}")
    return [_typed(row) for row in records]


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
        elif c == "provenance":
            out[c] = v if isinstance(v, dict) else json.loads(v)
        else:
            out[c] = v
    return out


class RowWriter:
    """Adds rows to ``path`` (a header first if a CSV file is new), each on disk at once."""

    def __init__(self, path: str) -> None:
        self.path, self.format = path, file_format(path)
        self.rows = [_record(r) for r in read_rows(path)] if self.format == "json" else []
        fresh = not os.path.exists(path) or os.path.getsize(path) == 0
        self.file: IO[str] | None = None
        if self.format != "json":
            self.file = open(path, "a", encoding="utf-8", newline="")  # noqa: SIM115 (closed by close())
        if fresh and self.format == "csv":
            self._write(",".join(COLUMNS) + "\r\n")

    def write(self, row: dict[str, Any]) -> None:
        if self.format == "json":
            self.rows.append(_record(row))
            self._replace(json.dumps(versioned({"rows": self.rows})) + "\n")
        elif self.format == "jsonl":
            self._write(json.dumps(versioned(_record(row))) + "\n")
        else:
            buf = io.StringIO()
            csv.writer(buf).writerow(["" if row.get(c) is None else _cell(row[c]) for c in COLUMNS])
            self._write(buf.getvalue())

    def _write(self, text: str) -> None:
        file = cast(IO[str], self.file)  # open for .csv and .jsonl, the formats written line by line
        file.write(text)
        file.flush()
        os.fsync(file.fileno())

    def _replace(self, text: str) -> None:
        """The whole document to a file beside ``path``, then renamed over it: always a valid document."""
        part = self.path + ".part"
        with open(part, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(part, self.path)

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def _record(row: dict[str, Any]) -> dict[str, Any]:
    """A row as a JSON object's fields: plain Python values, non-finite numbers as null."""
    return {c: plain(_finite(row.get(c))) for c in COLUMNS}


def _finite(v: Any) -> Any:
    return None if isinstance(v, float) and not math.isfinite(v) else v


def _cell(v: Any) -> str:
    return repr(float(v)) if isinstance(v, float) else json.dumps(plain(v)) if isinstance(v, dict) else str(v)


def markdown(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table (the columns that are not empty in every row; no provenance)."""
    shown = [c for c in COLUMNS if c != "provenance" and any(r.get(c) is not None for r in rows)]
    lines = ["| " + " | ".join(shown) + " |", "|" + "---|" * len(shown)]
    for r in rows:
        cells = []
        for c in shown:
            v = r.get(c)
            cells.append("" if v is None else f"{v:.8g}" if isinstance(v, float) else str(v).replace("|", "/"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
