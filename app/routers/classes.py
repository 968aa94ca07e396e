"""A class's checkpoints: a teacher makes a class (`/class/new`, `POST /api/classes`), students
answer at `/class/<code>` (`POST /api/classes/<code>/answers`, or the page's form), the teacher
reads `/class/<code>/results?key=` and its CSV, and deletes the class. The work is
`app.services.classes`'."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from tokenizers_core.corpora import corpus_names
from tokenizers_core.errors import InvalidInput, NotFound

from ..deps import StateDep
from ..errors import NotReady, TooManyRequests, bad_input
from ..jobs import Job
from ..render import render
from ..sandbox import client_of
from ..services import class_results, classes
from ..state import AppState

router = APIRouter(tags=["classes"])
SHOWN = (InvalidInput, NotFound, NotReady, TooManyRequests, PermissionError)  # in place


class ClassRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field(examples=["BPE week 2"], description="what students see at the top")
    algorithm: str = Field(examples=["bpe"], description="bpe, wordpiece or unigram")
    corpus: str = Field(
        "", examples=["botchan"], description="a bundled corpus's name or a stored sha256"
    )
    corpus_text: str | None = Field(None, description="or the corpus itself (stored)")
    vocab_size: int = Field(examples=[300])
    checkpoints: list[int] = Field(
        examples=[[1, 5, 20]],
        description="the steps to ask about, 1-based: checkpoint 1 is the training's first "
        "merge (Unigram: its first EM + pruning round)",
    )
    word: str | None = Field(
        None, description="unigram: the word to segment (default: a frequent long word)"
    )


class AnswerRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    student: str = Field(examples=["ana"], description="the student's name, 1 to 80 characters")
    checkpoint: int = Field(examples=[1])
    answer: list[str] | str = Field(
        examples=[["t", "h"]],
        description="BPE, WordPiece: the next merge's two tokens as the step view spells them; "
        "Unigram: the pieces of the best segmentation, in order",
    )


def _made(info: classes.ClassInfo, key: str) -> dict[str, Any]:
    return {
        "code": info.code,
        "teacher_key": key,
        "student_url": info.student_url,
        "teacher_url": info.teacher_url(key),
    }


def _spec(body: ClassRequest) -> classes.ClassSpec:
    return classes.ClassSpec(
        title=body.title,
        algorithm=body.algorithm,
        corpus=body.corpus,
        vocab_size=body.vocab_size,
        checkpoints=tuple(body.checkpoints),
        corpus_text=body.corpus_text,
        word=body.word,
    )


# ---- JSON ----------------------------------------------------------------------------------------
@router.post("/api/classes", status_code=201, tags=["api"], summary="Make a class")
def create_api(state: StateDep, body: ClassRequest) -> dict[str, Any]:
    """A class over one training run: its students predict the steps at `checkpoints`. The
    teacher key is given once, here: it opens the results and deletes the class."""
    info, key = classes.create(state, _spec(body))
    return _made(info, key)


@router.get("/api/classes/{code}", tags=["api"], summary="A class, as students see it")
def class_api(state: StateDep, code: str) -> dict[str, Any]:
    info = classes.get(state, code)
    return {
        "code": info.code,
        "title": info.title,
        "algorithm": info.algorithm,
        "corpus": info.corpus_name,
        "vocab_size": info.vocab_size,
        "checkpoints": list(info.checkpoints),
        "word": info.word,
        "ready": not isinstance(classes.reference(state, info), Job),
    }


@router.post("/api/classes/{code}/answers", tags=["api"], summary="Answer a checkpoint")
def answer_api(request: Request, state: StateDep, code: str, body: AnswerRequest) -> dict[str, Any]:
    """Grade a student's prediction of step `checkpoint`: `correct`, and why (the real step and
    its numbers). Every answer is stored; the results count the first at each checkpoint."""
    info = classes.get(state, code)
    right, why, q = classes.answer(
        state, info, body.student, body.checkpoint, body.answer, client_of(request.scope)
    )
    return {"correct": right, "explanation": why, "step": q.step, "view_url": q.view_url}


@router.get("/api/classes/{code}/results", tags=["api"], summary="A class's results (teacher)")
def results_api(state: StateDep, code: str, key: str = "") -> dict[str, Any]:
    info = classes.get(state, code)
    table = class_results.results(state, info, key)
    return {"checkpoints": list(table.checkpoints), "students": table.rows}


@router.delete("/api/classes/{code}", tags=["api"], summary="Delete a class and its answers")
def delete_api(state: StateDep, code: str, key: str = "") -> dict[str, Any]:
    gone = classes.delete(state, code, key)
    return {"deleted": code, "answers": gone}


# ---- the teacher's pages ------------------------------------------------------------------------
def _new_form(**given: Any) -> dict[str, Any]:
    return {
        "title": "",
        "algorithm": "bpe",
        "corpus": "botchan",
        "corpus_text": "",
        "vocab_size": 300,
        "checkpoints": "1, 2, 5, 10",
        "word": "",
        "algorithms": classes.ALGORITHMS,
        "bundled": corpus_names(),
        "made": None,
        "error": None,
        **given,
    }


@router.get("/class/new", response_class=HTMLResponse, summary="Make a class (the form)")
def new_page(request: Request) -> HTMLResponse:
    return render(request, "class_new.html", _new_form(), block="made")


@router.post("/class/new", response_class=HTMLResponse, summary="Make a class (the form's post)")
def new_post(
    request: Request,
    state: StateDep,
    title: str = Form(""),
    algorithm: str = Form("bpe"),
    corpus: str = Form(""),
    corpus_text: str = Form(""),
    vocab_size: str = Form("300"),
    checkpoints: str = Form(""),
    word: str = Form(""),
) -> HTMLResponse:
    ctx = _new_form(
        title=title,
        algorithm=algorithm,
        corpus=corpus,
        corpus_text=corpus_text,
        vocab_size=vocab_size,
        checkpoints=checkpoints,
        word=word,
    )
    status = 201
    try:
        size = int(vocab_size.strip()) if vocab_size.strip().isdigit() else None
        if size is None:
            raise InvalidInput(f"vocab_size: a whole number, got {vocab_size!r}")
        spec = classes.ClassSpec(
            title=title,
            algorithm=algorithm,
            corpus=corpus,
            vocab_size=size,
            checkpoints=classes.checkpoints_of(checkpoints.replace(",", " ").split()),
            corpus_text=corpus_text if corpus_text.strip() else None,
            word=word.strip() or None,
        )
        info, key = classes.create(state, spec)
        ctx["made"] = {**_made(info, key), "title": info.title}
    except SHOWN as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "class_new.html", ctx, block="made", status_code=status)


@router.get(
    "/class/{code}/results", response_class=HTMLResponse, summary="A class's results (teacher)"
)
def results_page(request: Request, state: StateDep, code: str, key: str = "") -> HTMLResponse:
    info = classes.get(state, code)
    table = class_results.results(state, info, key)
    ctx = {"cls": info, "table": table, "key": key, "teacher_url": info.teacher_url(key)}
    return render(request, "class_results.html", ctx, block="results")


@router.get("/class/{code}/results.csv", summary="A class's results as CSV (teacher)")
def results_csv(state: StateDep, code: str, key: str = "") -> Response:
    info = classes.get(state, code)
    body = class_results.results_csv(class_results.results(state, info, key))
    return Response(
        body,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="class-{info.code}.csv"'},
    )


@router.post(
    "/class/{code}/delete", response_class=HTMLResponse, summary="Delete a class (the form)"
)
def delete_post(request: Request, state: StateDep, code: str, key: str = Form("")) -> HTMLResponse:
    info = classes.get(state, code)
    gone = classes.delete(state, code, key)
    ctx = {"cls": info, "deleted": gone, "table": None, "key": ""}
    return render(request, "class_results.html", ctx, block="results")


# ---- the student's page --------------------------------------------------------------------------
def _student_page(
    request: Request,
    state: AppState,
    code: str,
    student: str,
    checkpoint: int | None,
    given: Any = None,
) -> HTMLResponse:
    info = classes.get(state, code)
    ctx: dict[str, Any] = {
        "cls": info,
        "student": student.strip(),
        "error": None,
        "q": None,
        "training": None,
        "done": {},
        "feedback": None,
        "given": given,
    }
    status = 200
    try:
        if given is not None or student.strip():
            ctx["student"] = classes.check_student(student)
        run = classes.reference(state, info)
        if isinstance(run, Job):
            ctx["training"] = run
            return render(request, "class.html", ctx, block="checkpoint", status_code=202)
        total = classes.steps_of(info, run)
        ctx["within"] = [k for k in info.checkpoints if k <= total]
        ctx["past"] = [k for k in info.checkpoints if k > total]
        if not ctx["student"]:
            return render(request, "class.html", ctx, block="checkpoint")
        done = classes.answered(state, info.code, ctx["student"])
        ctx["done"] = done
        if given is not None:
            k = checkpoint if checkpoint is not None else 0
            right, why, ctx["q"] = classes.answer(
                state, info, ctx["student"], k, given, client_of(request.scope)
            )
            ctx["feedback"] = {"correct": right, "explanation": why}
            ctx["done"] = {**done, k: done.get(k) or {"correct": right, "answer": given}}
        else:
            open_ = [c for c in ctx["within"] if c not in done]
            shown = checkpoint if checkpoint is not None else (open_[0] if open_ else None)
            if shown is not None:
                ctx["q"] = classes.question(state, info, run, shown)
                if shown in done:  # answered before: the first answer and why, the step shown
                    right, why = classes.grade(info, run, shown, tuple(done[shown]["answer"]))
                    ctx["feedback"] = {"correct": right, "explanation": why, "before": True}
        q = ctx["q"]
        if q is not None:
            later = [c for c in ctx["within"] if c > q.k and c not in ctx["done"]]
            ctx["next"] = later[0] if later else None
    except SHOWN as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "class.html", ctx, block="checkpoint", status_code=status)


@router.get("/class/{code}", response_class=HTMLResponse, summary="A class: the student's page")
def class_page(
    request: Request,
    state: StateDep,
    code: str,
    student: str = "",
    checkpoint: int | None = None,
) -> HTMLResponse:
    """Give your name, then predict each checkpoint's step; the page says whether it was right
    and shows the real step and why."""
    return _student_page(request, state, code, student, checkpoint)


@router.post("/class/{code}", response_class=HTMLResponse, summary="Answer (the page's form)")
def answer_post(
    request: Request,
    state: StateDep,
    code: str,
    student: str = Form(""),
    checkpoint: int = Form(...),
    answer: str = Form(""),
    left: str = Form(""),
    right: str = Form(""),
) -> HTMLResponse:
    """The form posts what the API takes: `answer` (a choice, "a⇥b", or pieces separated by
    spaces), or the two tokens as `left` and `right`."""
    given: Any = [left, right] if (left.strip() or right.strip()) and not answer else answer
    return _student_page(request, state, code, student, checkpoint, given)
