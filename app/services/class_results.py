"""A class's results for its teacher: a row per student, a cell per checkpoint (the first
answer, right or wrong, when, how many tries), and the same as CSV.

    table = results(state, cls, key)                  # PermissionError without the right key
    csv_text = results_csv(table)
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import select

from ..db.schema import class_answers
from ..state import AppState
from .classes import ClassInfo, check_key


@dataclass
class Results:
    """A row per student (by name), a cell per checkpoint: the first answer, right or wrong,
    when, and how many times they answered."""

    checkpoints: tuple[int, ...]
    rows: list[dict[str, Any]]
    answers: int


def results(state: AppState, info: ClassInfo, key: str | None) -> Results:
    check_key(state, info.code, key)
    with state.store.transaction() as conn:
        rows = conn.execute(
            select(
                class_answers.c.student,
                class_answers.c.checkpoint,
                class_answers.c.correct,
                class_answers.c.answer,
                class_answers.c.created,
            )
            .where(class_answers.c.class_code == info.code)
            .order_by(class_answers.c.created, class_answers.c.id)
        ).all()
    students: dict[str, dict[str, Any]] = {}
    for student, k, correct, given, created in rows:
        row = students.setdefault(student, {"student": student, "cells": {}, "right": 0})
        cell = row["cells"].get(k)
        if cell is None:
            row["cells"][k] = {
                "correct": bool(correct),
                "answer": json.loads(given),
                "created": created,
                "when": when(created),
                "tries": 1,
            }
            row["right"] += bool(correct)
        else:
            cell["tries"] += 1
    ordered = sorted(students.values(), key=lambda r: r["student"].casefold())
    return Results(info.checkpoints, ordered, len(rows))


def when(created: float) -> str:
    """A time as the results show it: UTC, to the second.

    >>> when(0.0)
    '1970-01-01 00:00:00 UTC'
    """
    return datetime.fromtimestamp(created, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def results_csv(table: Results) -> str:
    """The results as CSV: a row per student; per checkpoint right/wrong, the answer given, when
    (ISO 8601, UTC) and the number of answers; then the total right."""
    out = io.StringIO()
    writer = csv.writer(out)
    header = ["student"]
    for k in table.checkpoints:
        header += [
            f"checkpoint {k}",
            f"checkpoint {k} answer",
            f"checkpoint {k} at",
            f"checkpoint {k} tries",
        ]
    writer.writerow([*header, "right", "of"])
    for row in table.rows:
        line: list[Any] = [_cell_text(row["student"])]
        for k in table.checkpoints:
            cell = row["cells"].get(k)
            if cell is None:
                line += ["", "", "", 0]
                continue
            at = datetime.fromtimestamp(cell["created"], timezone.utc).isoformat(timespec="seconds")
            line += [
                "right" if cell["correct"] else "wrong",
                _cell_text(" ".join(cell["answer"])),
                at,
                cell["tries"],
            ]
        writer.writerow([*line, row["right"], len(table.checkpoints)])
    return out.getvalue()


def _cell_text(value: str) -> str:
    """A user's text as a CSV cell a spreadsheet shows as text, never runs as a formula."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value
