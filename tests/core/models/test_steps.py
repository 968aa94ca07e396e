"""The Step protocol: frozen values, JSON round trips, a registry keyed by kind."""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError, dataclass
from typing import ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.pipeline import ModelStep, NormalizeStep, PostProcessStep, PreTokenizeStep
from tokenizers_core.steps import Step, Trace, register_step, step_from_dict, step_kinds


@register_step
@dataclass(frozen=True)
class _DemoMerge(Step):
    kind: ClassVar[str] = "test_demo_merge"
    index: int
    pair: tuple[str, str]
    count: int
    extra: dict


def test_to_dict_is_json_and_round_trips():
    s = _DemoMerge(3, ("e", "r"), 5, {"tied": (("w", "e"), ("r", "</w>"))})
    d = s.to_dict()
    assert d == {
        "kind": "test_demo_merge",
        "index": 3,
        "pair": ["e", "r"],
        "count": 5,
        "extra": {"tied": [["w", "e"], ["r", "</w>"]]},
    }
    assert step_from_dict(json.loads(json.dumps(d))) == s
    assert _DemoMerge.from_dict(d) == s


def test_steps_are_frozen():
    s = _DemoMerge(1, ("a", "b"), 2, {})
    with pytest.raises(FrozenInstanceError):
        s.count = 3  # type: ignore[misc]


def test_unknown_kind_and_missing_fields_are_value_errors():
    with pytest.raises(ValueError, match="unknown step kind"):
        step_from_dict({"kind": "no_such_step"})
    with pytest.raises(ValueError, match="missing"):
        step_from_dict({"kind": "test_demo_merge", "index": 1})
    with pytest.raises(ValueError, match="expected"):
        NormalizeStep.from_dict({"kind": "model", "tokens": [], "model": "x"})


def test_duplicate_kind_is_refused():
    with pytest.raises(TypeError):

        @register_step
        @dataclass(frozen=True)
        class Other(Step):
            kind: ClassVar[str] = "test_demo_merge"


def test_registry_lists_pipeline_kinds():
    kinds = step_kinds()
    for k in ("normalize", "pre_tokenize", "model", "post_process"):
        assert k in kinds


@given(st.text(max_size=40))
def test_pipeline_trace_round_trips(text):
    _, trace = tc.load("word").trace(text)
    assert [s.kind for s in trace] == ["normalize", "pre_tokenize", "model", "post_process"]
    again = Trace.from_json(trace.to_json())
    assert again == trace
    for step in trace:
        assert type(step).from_dict(step.to_dict()) == step


def test_every_registered_kind_round_trips_its_own_example():
    examples = [
        NormalizeStep("Ab", "ab", ((0, 1), (1, 2)), "Lowercase"),
        PreTokenizeStep((("ab", 0, 2),), "Whitespace"),
        ModelStep((("ab", 7, 0, 2, 0),), "WordPiece"),
        PostProcessStep((("[CLS]", 101, 0, 0, True), ("ab", 7, 0, 2, False)), "Bert"),
    ]
    for s in examples:
        assert step_from_dict(json.loads(json.dumps(s.to_dict()))) == s
