"""CI locks: the ids a tokenizer gives a set of texts, written down once and checked on every run.

>>> import tokenizers_core as tc
>>> doc = tc.lock("r50k_base", ["Hello, world!"])
>>> doc["texts"][0]["ids"], tc.verify(doc).ok
([15496, 11, 995, 0], True)

A lock (`tokvis lock`, JSON) holds the tokenizer's `fingerprint`, the `options` the ids were
made with (`special`: the switch for special tokens typed in a text, None for the owner
library's default; `add_special_tokens`: the post-processor's BOS, [CLS] ...), and `texts`, each
with its `ids` (and its `tokens`, for a person reading the lock's diff in a review). `verify`
encodes each text again, with the lock's options, and says for each whether it gives its ids;
where not, the first position that differs with both sides as tokens, and whether the
fingerprint changed too. A text over `max_tokens` fails as well (a prompt's budget).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable
from xml.etree import ElementTree

from .errors import InvalidInput
from .fingerprints import Fingerprint, fingerprint
from .notebook import verify_html
from .pipeline import Tokenizer
from .pretrained import load
from .special_switch import special_options
from .version import version

LOCK_VERSION = 1


# ---- writing a lock ----------------------------------------------------------------------------
def lock(
    source: Any,
    texts: Iterable[str],
    *,
    special: bool | None = None,
    add_special_tokens: bool = True,
    tokenizer: str | None = None,
    **load_options: Any,
) -> dict[str, Any]:
    """The lock of `texts` under a tokenizer (a `Tokenizer`, or what `tc.load` takes, with
    `load_options`), as a JSON-ready dict. `tokenizer` is the name or path written in the lock
    for `verify` to load again when it is given none (default: `source` when it is a string)."""
    tok = _tokenizer(source, load_options)
    options = {"special": special, "add_special_tokens": add_special_tokens}
    entries = []
    for text in texts:
        enc = _encode(tok, text, options)
        entries.append({"text": text, "ids": enc.ids, "tokens": enc.tokens})
    label = tokenizer if tokenizer is not None else source if isinstance(source, str) else None
    return {
        "tokvis_lock": LOCK_VERSION,
        "written_by": f"tokenizers_core {version()}",
        "tokenizer": label,
        "load_options": {k: v for k, v in load_options.items() if v is not None},
        "fingerprint": fingerprint(tok).to_dict(),
        "options": options,
        "texts": entries,
    }


def read_texts(data: str) -> list[str]:
    """The texts of a `--texts` file: one per line, the line's end not part of it (a trailing
    newline at the end of the file adds no empty text)."""
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def dumps(doc: dict[str, Any]) -> str:
    """A lock as text: a text per line, so that a change to one is one line of a review's diff."""
    lines = ["{"]
    for key, value in doc.items():
        if key != "texts":
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},")
    entries = [f"    {json.dumps(e, ensure_ascii=False)}" for e in doc["texts"]]
    lines += ['  "texts": [', ",\n".join(entries), "  ]"] if entries else ['  "texts": []']
    return "\n".join([*lines, "}"]) + "\n"


# ---- checking one ------------------------------------------------------------------------------
@dataclass(frozen=True)
class TextResult:
    """One text of the lock, checked: `ok` when it gives the lock's ids (and fits the budget)."""

    index: int
    text: str
    expected: list[int]
    actual: list[int]
    expected_tokens: list[str]
    actual_tokens: list[str]
    max_tokens: int | None = None

    @property
    def first_diff(self) -> int | None:
        """The first position where the ids differ (the shorter's length when one is a prefix
        of the other); None when they are the same."""
        if self.expected == self.actual:
            return None
        for i, (a, b) in enumerate(zip(self.expected, self.actual)):
            if a != b:
                return i
        return min(len(self.expected), len(self.actual))

    @property
    def over_budget(self) -> bool:
        return self.max_tokens is not None and len(self.actual) > self.max_tokens

    @property
    def ok(self) -> bool:
        return self.first_diff is None and not self.over_budget

    def message(self) -> str:
        """What went wrong, in one or two lines ("" when ok)."""
        lines = []
        at = self.first_diff
        if at is not None:
            lines.append(
                f"text {self.index + 1}: differs at token {at}: the lock has "
                f"{_side(self.expected, self.expected_tokens, at)}, now "
                f"{_side(self.actual, self.actual_tokens, at)} "
                f"({len(self.expected)} -> {len(self.actual)} tokens)"
            )
        if self.over_budget:
            lines.append(
                f"text {self.index + 1}: {len(self.actual)} tokens, over the budget of "
                f"{self.max_tokens}"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        at = self.first_diff
        return {
            "index": self.index,
            "text": self.text,
            "ok": self.ok,
            "first_diff": at,
            "expected": _window(self.expected, self.expected_tokens, at),
            "actual": _window(self.actual, self.actual_tokens, at),
            "tokens_expected": len(self.expected),
            "tokens_actual": len(self.actual),
            "over_budget": self.over_budget,
        }


@dataclass(frozen=True)
class VerifyReport:
    """The lock checked: `ok` when every text passes; `fingerprint_changed` names the parts of
    the fingerprint that differ from the lock's (a file edited with its behaviour kept changes
    `sha256` alone)."""

    tokenizer: str
    results: list[TextResult]
    locked: Fingerprint
    current: Fingerprint
    fingerprint_changed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def failures(self) -> list[TextResult]:
        return [r for r in self.results if not r.ok]

    def summary(self) -> str:
        n, bad = len(self.results), len(self.failures)
        head = (
            f"{self.tokenizer}: all {n} text{'' if n == 1 else 's'} give their locked ids"
            if not bad
            else f"{self.tokenizer}: {bad} of {n} text{'' if n == 1 else 's'} fail"
        )
        if self.fingerprint_changed:
            changed = ", ".join(self.fingerprint_changed)
            head += f"; the fingerprint changed ({changed})" + (
                ", but every text gives its ids: only the fingerprint changed" if not bad else ""
            )
        return head

    def to_text(self) -> str:
        lines = [r.message() for r in self.failures]
        return "\n".join([*lines, self.summary()]) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "tokenizer": self.tokenizer,
            "texts": len(self.results),
            "failed": len(self.failures),
            "fingerprint": {
                "locked": self.locked.to_dict(),
                "current": self.current.to_dict(),
                "changed": self.fingerprint_changed,
                "only_fingerprint_changed": bool(self.fingerprint_changed) and self.ok,
            },
            "results": [r.to_dict() for r in self.results],
        }

    def _repr_html_(self) -> str:
        """The summary and each failing text's first moved token, as chips, in a notebook."""
        return verify_html(self)

    def to_junit(self) -> str:
        """JUnit XML: a `testsuite` of one `testcase` per text, a `failure` for each that
        differs (CI systems show these per test)."""
        suite = ElementTree.Element(
            "testsuite",
            name=f"tokvis verify {self.tokenizer}",
            tests=str(len(self.results)),
            failures=str(len(self.failures)),
            errors="0",
        )
        if self.fingerprint_changed:
            props = ElementTree.SubElement(suite, "properties")
            ElementTree.SubElement(
                props,
                "property",
                name="fingerprint_changed",
                value=",".join(self.fingerprint_changed),
            )
        for r in self.results:
            case = ElementTree.SubElement(
                suite,
                "testcase",
                classname="tokvis.lock",
                name=f"text {r.index + 1}: {_label(r.text)}",
            )
            if not r.ok:
                failure = ElementTree.SubElement(
                    case, "failure", message=r.message().split("\n")[0], type="TokenizationDrift"
                )
                failure.text = r.message() + f"\ntext: {r.text!r}"
        return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def verify(
    doc: Any, source: Any = None, *, max_tokens: int | None = None, **load_options: Any
) -> VerifyReport:
    """Check a lock (its dict, as `lock` gives it or `load_lock` reads it) against a tokenizer
    (`source`; default: the one the lock names, with its load options)."""
    doc = validate(doc)
    if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 1):
        raise InvalidInput("max_tokens is a whole number of at least 1")
    if source is None:
        if not doc.get("tokenizer"):
            raise InvalidInput("the lock names no tokenizer: give one (-t NAME|FILE)")
        source, load_options = doc["tokenizer"], {**doc.get("load_options", {}), **load_options}
    tok = _tokenizer(source, load_options)
    options = doc["options"]
    results = []
    for i, entry in enumerate(doc["texts"]):
        enc = _encode(tok, entry["text"], options)
        tokens = entry.get("tokens")
        if not (isinstance(tokens, list) and len(tokens) == len(entry["ids"])):
            tokens = [_token(tok, t) for t in entry["ids"]]
        results.append(
            TextResult(i, entry["text"], entry["ids"], enc.ids, tokens, enc.tokens, max_tokens)
        )
    locked, current = Fingerprint.from_dict(doc["fingerprint"]), fingerprint(tok)
    changed = [
        k for k in ("sha256", "behaviour", "chkhsh") if getattr(locked, k) != getattr(current, k)
    ]
    label = source if isinstance(source, str) else (tok.name or "the tokenizer")
    return VerifyReport(label, results, locked, current, changed)


def load_lock(data: str | bytes) -> dict[str, Any]:
    """A lock file's text, parsed and checked (InvalidInput naming what is wrong)."""
    try:
        doc = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"the lock is not JSON ({exc})") from None
    return validate(doc)


def validate(doc: Any) -> dict[str, Any]:
    """`doc` if it is a lock this version reads, else InvalidInput saying what is wrong."""
    if not isinstance(doc, dict) or "texts" not in doc:
        raise InvalidInput("not a tokvis lock: a JSON object with fingerprint, options and texts")
    version = doc.get("tokvis_lock", LOCK_VERSION)
    if version != LOCK_VERSION:
        raise InvalidInput(
            f"a lock of version {version!r}; this tokvis reads version {LOCK_VERSION}"
        )
    Fingerprint.from_dict(doc.get("fingerprint"))
    options = doc.get("options", {})
    if not isinstance(options, dict) or options.get("special") not in (None, True, False):
        raise InvalidInput("the lock's options: special is true, false or null")
    if not isinstance(options.get("add_special_tokens", True), bool):
        raise InvalidInput("the lock's options: add_special_tokens is true or false")
    if not isinstance(doc.get("load_options", {}), dict):
        raise InvalidInput("the lock's load_options is a JSON object")
    texts = doc["texts"]
    if not isinstance(texts, list):
        raise InvalidInput("the lock's texts is a list of {text, ids}")
    for i, entry in enumerate(texts):
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("text"), str)
            and isinstance(entry.get("ids"), list)
            and all(isinstance(t, int) and not isinstance(t, bool) for t in entry["ids"])
        ):
            raise InvalidInput(f'text {i + 1} of the lock is not {{"text": str, "ids": [int]}}')
    return {
        **doc,
        "options": {
            "special": options.get("special"),
            "add_special_tokens": options.get("add_special_tokens", True),
        },
    }


# ---- helpers ------------------------------------------------------------------------------------
def _tokenizer(source: Any, load_options: dict[str, Any]) -> Any:
    return source if isinstance(source, Tokenizer) else load(source, **load_options)


def _encode(tok: Any, text: str, options: dict[str, Any]) -> Any:
    return tok.encode(
        text,
        add_special_tokens=options["add_special_tokens"],
        **special_options(tok, options["special"], text),
    )


def _token(tok: Any, id_: int) -> str:
    token = tok.id_to_token(id_)
    return token if token is not None else f"<id {id_}>"


def _side(ids: list[int], tokens: list[str], at: int) -> str:
    if at >= len(ids):
        return "(the end)"
    return f"{tokens[at]!r} ({ids[at]})"


def _window(ids: list[int], tokens: list[str], at: int | None, width: int = 3) -> list[dict]:
    """The tokens around the first difference, as {id, token} (none when there is none)."""
    if at is None:
        return []
    return [{"id": ids[k], "token": tokens[k]} for k in range(at, min(len(ids), at + width))]


def _label(text: str, limit: int = 60) -> str:
    flat = text.replace("\n", "\\n").replace("\t", "\\t")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
