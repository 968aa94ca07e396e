"""The space of tokenisations (`/tokenizations`, `GET /api/tokenizations`, `POST
/api/canonical`, `GET /api/heal`): every token sequence that decodes to a text, how many there
are, the canonical one, samples from the rest, where a sequence stops being canonical and
token healing at a prompt's end."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from tokenizers_core.errors import InvalidInput

from ..deps import Name, StateDep, bounded
from ..errors import BAD_INPUT, bad_input
from ..render import render
from ..services import tokenizations
from ..services.tokenizers import tokenizer_label, tokenizer_options

router = APIRouter(tags=["tokenizations"])

_IDS = {"type": "array", "items": {"type": "integer"}}
SPACE_DOC: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The space of tokenisations of the text",
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["tokenizer", "unit", "count", "log10", "canonical"],
                    "properties": {
                        "tokenizer": {"type": "string"},
                        "unit": {"type": "string", "enum": ["byte", "char"]},
                        "count": {"type": "string", "pattern": "^[0-9]+$"},
                        "log10": {"type": "number"},
                        "canonical": _IDS,
                        "shortest": {"type": "array", "items": _IDS},
                        "samples": {"type": "array", "items": _IDS},
                    },
                }
            }
        },
    },
    503: {"description": "Too busy to work it out now; try again after Retry-After seconds"},
}


@router.get(
    "/tokenizations",
    response_class=HTMLResponse,
    summary="Every token sequence that decodes to a text",
)
def tokenizations_page(
    request: Request,
    state: StateDep,
    tokenizer: str = tokenizations.DEFAULT_TOKENIZER,
    text: str = tokenizations.DEFAULT_TEXT,
    seed: int = bounded(0, 0, 2**31 - 1),
    dropout: float = bounded(0.1, 0, 1),
    stochastok: float = bounded(0.3, 0, 1),
    ids: str = "",
    prompt: str = tokenizations.DEFAULT_PROMPT,
) -> HTMLResponse:
    """`text`: at most 2,000 bytes; `seed`: the samples' seed; `dropout`: BPE-dropout's merge
    drop rate; `stochastok`: StochasTok's split rate; `ids`: token ids to check for
    canonicality; `prompt`: a prompt to heal at its end."""
    params = {
        "tokenizer": tokenizer,
        "text": text,
        "seed": seed,
        "dropout": dropout,
        "stochastok": stochastok,
        "ids": ids or None,
        "prompt": prompt,
    }
    ctx: dict[str, Any] = {
        **params,
        "ids": ids,
        "params": params,
        "options": tokenizer_options(state, tokenizer),
        "label": tokenizer_label(state, tokenizer),
        "max_bytes": tokenizations.MAX_TEXT_BYTES,
        "error": None,
        "result": None,
    }
    status = 200
    try:
        _rates(seed, dropout, stochastok)
        ctx["result"] = tokenizations.page(
            state,
            tokenizer,
            text,
            seed=seed,
            dropout=dropout,
            stochastok=stochastok,
            ids=ids,
            prompt=prompt,
        )
    except BAD_INPUT as exc:  # shown in place, the form kept
        ctx["error"], status = bad_input(exc)
    return render(request, "tokenizations.html", ctx, block="results", status_code=status)


def _rates(seed: int, dropout: float, stochastok: float) -> None:
    if not 0 <= seed < 2**31:
        raise InvalidInput(f"the seed must be a whole number from 0 to {2**31 - 1:,}")
    for name, p in (("dropout", dropout), ("StochasTok", stochastok)):
        if not 0 <= p <= 1:
            raise InvalidInput(f"the {name} rate must be between 0 and 1, not {p}")


@router.get(
    "/api/tokenizations",
    tags=["api"],
    summary="How many token sequences decode to a text; the shortest, and uniform samples",
    responses=SPACE_DOC,
)
def tokenizations_api(
    state: StateDep,
    tokenizer: Name,
    text: str,
    k: int = bounded(5, 0, tokenizations.MAX_K),
    samples: int = bounded(5, 0, tokenizations.MAX_SAMPLES),
    seed: int | None = None,
) -> Response:
    """For a text of at most 2,000 bytes (special tokens aside): `count`, the number of token
    sequences that decode to it, exact, as a decimal string; `log10`; `canonical`, what encode
    gives; `shortest`, the k sequences of fewest tokens; `samples`, drawn uniformly from all of
    them (by `seed`). `unit` says whether the lattice is over bytes or characters. The work
    has a budget of CPU seconds and memory: past it, a 422 saying so; a 503 with Retry-After
    when the server is too busy to start it."""
    if not 0 <= k <= tokenizations.MAX_K:
        raise InvalidInput(f"k must be between 0 and {tokenizations.MAX_K}, not {k}")
    if not 0 <= samples <= tokenizations.MAX_SAMPLES:
        raise InvalidInput(
            f"samples must be between 0 and {tokenizations.MAX_SAMPLES:,}, not {samples}"
        )
    body = tokenizations.api_space(state, tokenizer, text, k, samples, seed)
    return Response(body, media_type="application/json")


class CanonicalRequest(BaseModel):
    model_config = ConfigDict(strict=True)  # JSON as the schema says: no 0 for false, no "1" for 1
    tokenizer: str = Field(description="as in /api/encode", examples=["cl100k_base"])
    ids: list[int] = Field(max_length=2000, examples=[[8154, 301, 17980]])


@router.post("/api/canonical", tags=["api"], summary="Whether token ids are what encode gives")
def canonical_api(state: StateDep, body: CanonicalRequest) -> dict[str, Any]:
    """`canonical`: whether encode of the ids' text gives the ids back; `first_break`: where
    it first does not (for BPE, the left token of the first adjacent pair whose own text
    encodes differently; for other models the first differing position), null when canonical;
    `canonical_ids`: what encode gives."""
    return tokenizations.api_canonical(state, body.tokenizer, body.ids)


@router.get("/api/heal", tags=["api"], summary="Token healing at the end of a prompt")
def heal_api(state: StateDep, tokenizer: Name, prompt: str) -> dict[str, Any]:
    """The prompt's ids, `healed_ids` (the last token backed off), the `removed` text, and the
    tokens `allowed` next (those whose text extends the removed text; `n_allowed` in all)."""
    return tokenizations.api_heal(state, tokenizer, prompt)
