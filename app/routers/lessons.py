"""Worked lessons (`/lessons`, `/lessons/{slug}?step=k`): textbook examples, one engine state
a step, with a sentence each (`app/lessons.py`)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from ..lessons import LESSONS, lesson, page
from ..render import render

router = APIRouter(tags=["lessons"])


@router.get("/lessons", response_class=HTMLResponse, summary="Worked lessons")
def lessons_index(request: Request) -> HTMLResponse:
    return render(request, "lessons/index.html", {"lessons": [lesson(s) for s in LESSONS]})


@router.get("/lessons/{slug}", response_class=HTMLResponse, summary="One worked lesson, step k")
def lesson_page(request: Request, slug: str, step: int = 0, play: bool = False) -> HTMLResponse:
    if slug not in LESSONS:
        raise HTTPException(404, f"no lesson {slug!r}; see /lessons for the list")
    return render(request, "lessons/lesson.html", page(slug, step, play), block="step")
