"""The reader of a tokenizer.json's "post_processor" entry (`from_hf_config`)."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ..errors import InvalidInput
from ..hf_config import from_entry
from .bert import BertProcessing
from .byte_level import ByteLevel
from .roberta import RobertaProcessing
from .sequence import Sequence
from .template import TemplateProcessing, _check_declared


def _template_from_hf(items: Any, where: str) -> list[str]:
    """A template as a tokenizer.json stores it: [{"SpecialToken": {"id", "type_id"}} |
    {"Sequence": {"id": "A" | "B", "type_id"}}, ...] (or a string, as the Python API takes)."""
    if isinstance(items, str):
        return items.split(" ")
    if not isinstance(items, list):
        raise InvalidInput(f"TemplateProcessing: {where} must be a list of template items")
    out = []
    for item in items:
        if not isinstance(item, dict) or len(item) != 1:
            raise InvalidInput(
                f"TemplateProcessing: {where} item {item!r} is not "
                '{"Sequence": ...} or {"SpecialToken": ...}'
            )
        ((kind, body),) = item.items()
        if (
            not isinstance(body, dict)
            or not isinstance(body.get("id"), str)
            or not isinstance(body.get("type_id", 0), int)
        ):
            raise InvalidInput(
                f"TemplateProcessing: {where} item {item!r} needs an id and a type_id"
            )
        type_id = body.get("type_id", 0)
        if kind == "Sequence" and body["id"] in ("A", "B"):
            out.append(f"${body['id']}:{type_id}")
        elif kind == "SpecialToken":
            if ":" in body["id"] or " " in body["id"] or body["id"].startswith("$"):
                raise InvalidInput(
                    f"TemplateProcessing: special token id {body['id']!r} cannot be "
                    "written in a template"
                )
            out.append(f"{body['id']}:{type_id}")
        else:
            raise InvalidInput(
                f"TemplateProcessing: {where} item {item!r} is not a sequence A/B "
                "or a special token"
            )
    return out


def _special_tokens_from_hf(cfg: Any) -> list[tuple]:
    if isinstance(cfg, list):  # the Python API's [(token, id), ...]
        return [tuple(e) for e in cfg]
    if not isinstance(cfg, Mapping):
        raise InvalidInput("TemplateProcessing: special_tokens must be an object")
    _check_declared(len(cfg))  # before any of them is read
    out = []
    for name, spec in cfg.items():
        if (
            not isinstance(spec, Mapping)
            or not isinstance(spec.get("ids"), list)
            or not isinstance(spec.get("tokens"), list)
        ):
            raise InvalidInput(f"TemplateProcessing: special token {name!r} needs ids and tokens")
        out.append((spec.get("id", name), spec["ids"], spec["tokens"]))
    return out


def _sequence(cfg: Mapping) -> Sequence:
    processors = cfg.get("processors")
    if not isinstance(processors, list):
        raise InvalidInput("Sequence needs a list of processors")
    return Sequence(from_hf_config(p) for p in processors)


_BUILDERS: dict[str, Callable[[Mapping], Any]] = {
    "TemplateProcessing": lambda cfg: TemplateProcessing(
        _template_from_hf(cfg.get("single", "$0"), "single"),
        _template_from_hf(cfg.get("pair", "$A:0 $B:1"), "pair"),
        _special_tokens_from_hf(cfg.get("special_tokens", {})),
    ),
    "BertProcessing": lambda cfg: BertProcessing(
        sep=cfg.get("sep", ("[SEP]", 102)), cls=cfg.get("cls", ("[CLS]", 101))
    ),
    "RobertaProcessing": lambda cfg: RobertaProcessing(
        sep=cfg.get("sep", ("</s>", 2)),
        cls=cfg.get("cls", ("<s>", 0)),
        trim_offsets=cfg.get("trim_offsets", True),
        add_prefix_space=cfg.get("add_prefix_space", True),
    ),
    "ByteLevel": lambda cfg: ByteLevel(
        trim_offsets=cfg.get("trim_offsets", True),
        add_prefix_space=cfg.get("add_prefix_space", True),
    ),
    "Sequence": _sequence,
}
SUPPORTED = list(_BUILDERS)


def from_hf_config(cfg: Mapping | None) -> Any:
    """The post-processor of a tokenizer.json's "post_processor" entry (None for null).

    >>> from_hf_config({"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]}).cls
    ('[CLS]', 2)

    An unknown type or a bad option raises `ValueError` naming the post-processor (the bounds'
    and the templates' own messages already do).
    """
    return from_entry(
        cfg, "post_processor", _BUILDERS, named=("post_processor", "TemplateProcessing")
    )
