"""Steps: one frozen, JSON-safe value per textbook step of an algorithm.

Every algorithm in this package is written once, as a generator that yields steps. The plain API
(`train`, `encode`) runs that generator to the end; the views render the steps themselves. So what a
learner sees and what the library returns come from the same code.

A step class is a frozen dataclass registered under a stable `kind` string::

    @register_step
    @dataclass(frozen=True)
    class BpeMergeStep(Step):
        kind: ClassVar[str] = "bpe_merge"
        index: int
        pair: tuple[str, str]
        count: int

    s = BpeMergeStep(1, ("l", "o"), 7)
    s.to_dict()   # {'kind': 'bpe_merge', 'index': 1, 'pair': ['l', 'o'], 'count': 7}
    step_from_dict(s.to_dict()) == s   # True

Field values must be JSON-safe: str, int, float, bool, None, tuples (serialised as lists and
restored as tuples) and dicts with string keys. Lists are not allowed in a step, because a frozen
value must not be mutable; `from_dict` turns every JSON list back into a tuple.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Iterator

from .errors import InvalidInput

_STEP_KINDS: dict[str, type["Step"]] = {}


def register_step(cls: type["Step"]) -> type["Step"]:
    """Class decorator: make `cls` restorable by `step_from_dict` under `cls.kind`."""
    kind = getattr(cls, "kind", None)
    if not isinstance(kind, str) or not kind:
        raise TypeError(f"{cls.__name__} needs a non-empty class attribute `kind`")
    if kind in _STEP_KINDS and _STEP_KINDS[kind] is not cls:
        raise TypeError(f"step kind {kind!r} is registered twice")
    _STEP_KINDS[kind] = cls
    return cls


def step_kinds() -> dict[str, type["Step"]]:
    """All registered step kinds (a copy): kind -> class."""
    return dict(_STEP_KINDS)


def _to_json(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _to_json(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_from_json(v) for v in value)
    if isinstance(value, dict):
        return {k: _from_json(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class Step:
    """Base class of all steps. Subclasses set `kind` and declare their fields."""

    kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: {"kind": ..., field: value, ...} (tuples become lists)."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in dataclasses.fields(self):
            out[f.name] = _to_json(getattr(self, f.name))
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Step":
        """Restore a step from `to_dict()` output. On `Step` itself, dispatches on data["kind"]."""
        target = cls
        if cls is Step or not cls.kind:
            kind = data.get("kind")
            if kind not in _STEP_KINDS:
                raise InvalidInput(f"unknown step kind {kind!r}")
            target = _STEP_KINDS[kind]
        elif data.get("kind", cls.kind) != cls.kind:
            raise InvalidInput(f"expected a {cls.kind!r} step, got {data.get('kind')!r}")
        names = {f.name for f in dataclasses.fields(target)}
        missing = names - data.keys()
        if missing:
            raise InvalidInput(f"{target.kind} step is missing {sorted(missing)}")
        return target(**{k: _from_json(data[k]) for k in names})


def step_from_dict(data: dict[str, Any]) -> Step:
    """Restore any registered step from its dict."""
    return Step.from_dict(data)


class Trace:
    """An ordered record of steps, e.g. the stages of one pipeline run.

    >>> t = Trace([])
    >>> len(t), t.to_json()
    (0, '[]')
    """

    def __init__(self, steps: Iterable[Step] = ()) -> None:
        self.steps: list[Step] = list(steps)

    def append(self, step: Step) -> None:
        self.steps.append(step)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, index: int) -> Step:
        return self.steps[index]

    def of_kind(self, kind: str) -> list[Step]:
        return [s for s in self.steps if s.kind == kind]

    def to_list(self) -> list[dict[str, Any]]:
        return [s.to_dict() for s in self.steps]

    def to_json(self) -> str:
        return json.dumps(self.to_list(), ensure_ascii=False)

    @classmethod
    def from_list(cls, data: Iterable[dict[str, Any]]) -> "Trace":
        return cls(step_from_dict(d) for d in data)

    @classmethod
    def from_json(cls, text: str) -> "Trace":
        return cls.from_list(json.loads(text))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Trace) and self.steps == other.steps

    def __repr__(self) -> str:
        return f"Trace({self.steps!r})"


def describe(component: Any) -> str:
    """A short human name for a pipeline component ("none" for a missing one)."""
    if component is None:
        return "none"
    describe_fn = getattr(component, "describe", None)
    if callable(describe_fn):
        return describe_fn()
    return type(component).__name__
