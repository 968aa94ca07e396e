"""Corpora of several shards and the trainings on them: each shard counted by a job on
whichever worker takes it, the counts added up, the training run from the sum
(`app.services.sharded`, `app.jobs.counting`). The training's page shows each shard's state."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Request, UploadFile
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from ..deps import Name, StateDep
from ..errors import BAD_INPUT, bad_input
from ..render import render
from ..services import sharded

router = APIRouter(tags=["training on shards"])
MAX_SHARD_VOCAB = 100_000
Path = Annotated[str, StringConstraints(min_length=1, max_length=4096)]


class ShardsOut(BaseModel):
    corpus: str = Field(description="the corpus of shards' name, for POST /api/train/sharded")
    shards: list[dict[str, Any]]


class PathsIn(BaseModel):
    model_config = ConfigDict(strict=True)
    paths: list[Path] = Field(min_length=1, max_length=sharded.MAX_SHARDS)


class ShardedTrainIn(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    algorithm: Name = Field(examples=["byte_bpe"])
    corpus: Name = Field(description="a corpus of shards (`shards-...`)")
    vocab_size: int = Field(examples=[1000], ge=1, le=MAX_SHARD_VOCAB)


@router.post("/api/corpora/shards", tags=["api"], status_code=201, response_model=ShardsOut)
async def upload_shards(state: StateDep, files: list[UploadFile] = File(...)) -> dict[str, Any]:
    """Store several uploaded UTF-8 files as one corpus of shards (each file a shard)."""
    if len(files) > sharded.MAX_SHARDS:
        raise sharded.InvalidInput(f"at most {sharded.MAX_SHARDS} files make one corpus")
    shards = await sharded.uploaded_shards(state, files)
    return {"corpus": sharded.put_shards(state, shards), "shards": shards}


@router.post("/api/corpora/shards/paths", tags=["api"], status_code=201, response_model=ShardsOut)
def path_shards(state: StateDep, body: PathsIn) -> dict[str, Any]:
    """A corpus of shards from files on the server, in the folders TOKVIS_CORPUS_DIRS allows
    (403 for any other path)."""
    shards = sharded.path_shards(body.paths)
    return {"corpus": sharded.put_shards(state, shards), "shards": shards}


@router.post("/api/train/sharded", tags=["api"], status_code=202)
def train_sharded(state: StateDep, body: ShardedTrainIn) -> dict[str, Any]:
    """Train a word-count trainer on a corpus of shards: a job per shard counts it, the last
    to end queues the training from the counts' sum. Poll `GET /api/train/sharded/{id}`;
    once done, `id` is a tokenizer handle (/api/encode). Asked again, it goes on where it
    stopped (a 429 halfway, a shard given up)."""
    return sharded.start_training(
        state, body.algorithm, body.corpus, body.vocab_size, dict(body.model_extra or {})
    )


@router.get("/api/train/sharded/{training_id}", tags=["api"])
def sharded_status(state: StateDep, training_id: str) -> dict[str, Any]:
    """The training's state (counting, training, done, error) and each shard's: its name,
    state and the pre-tokens counted so far; once done, the merges."""
    return sharded.training_progress(state, training_id)


@router.get(
    "/train/sharded/{training_id}", response_class=HTMLResponse, summary="A training on shards"
)
def sharded_page(request: Request, state: StateDep, training_id: str) -> HTMLResponse:
    ctx: dict[str, Any] = {"training_id": training_id, "error": None, "training": None}
    status = 200
    try:
        ctx["training"] = sharded.training_progress(state, training_id)
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "sharded_train.html", ctx, block="progress", status_code=status)
