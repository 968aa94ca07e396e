"""A bounded schemathesis run over every operation of the OpenAPI schema: no server errors, every
status documented, every body as documented. (Examples are few per operation, so the run stays
well under a minute; the trainings it starts run with a small CPU budget.) The paged
operations also go through schemathesis's coverage phase (each bound of each parameter): what
their schema refuses (a page below its minimum) they refuse."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from schemathesis.checks import (
    negative_data_rejection,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.config import SchemathesisConfig

from app.config import Settings
from app.main import create_app

pytestmark = pytest.mark.slow  # schemathesis over every operation

MAX_EXAMPLES = 10


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory):
    db = tmp_path_factory.mktemp("fuzz") / "store.sqlite3"
    app = create_app(
        Settings(
            db_path=db,
            max_text_chars=2_000,
            max_corpus_bytes=200_000,
            max_upload_bytes=200_000,
            regex_timeout=0.2,
            job_workers=2,
            job_queue=2,
            job_cpu_seconds=1,
            job_memory_mb=1024,
        )
    )
    yield app
    app.state.jobs.stop()


schema = schemathesis.pytest.from_fixture("fuzz_schema")


@pytest.fixture(scope="module")
def fuzz_schema(fuzz_app):
    # the examples and fuzzing phases, bounded by max_examples; not the coverage phase, which
    # tries every boundary of every parameter whatever max_examples says
    config = SchemathesisConfig.from_dict({"phases": {"coverage": {"enabled": False}}})
    return schemathesis.openapi.from_asgi("/openapi.json", fuzz_app, config=config)


CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]
HEAVY = "compare|tax"  # each call trains three columns or encodes 33 languages


@schema.exclude(path_regex=HEAVY).parametrize()
@hypothesis_settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_keeps_its_contract(case):
    case.call_and_validate(checks=CHECKS)


@schema.include(path_regex=HEAVY).parametrize()
@hypothesis_settings(
    max_examples=1, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
def test_heavy_operations_keep_their_contract(case):
    case.call_and_validate(checks=CHECKS)


PAGED = r"^/(api/)?(audit|diff|vocab/diff)$"  # a `page` with a minimum, checked by the route


@pytest.fixture(scope="module")
def boundary_schema(fuzz_app):
    # the coverage phase alone: each parameter at and past its bounds
    phases = {"examples": {"enabled": False}, "fuzzing": {"enabled": False}}
    config = SchemathesisConfig.from_dict({"phases": phases})
    return schemathesis.openapi.from_asgi("/openapi.json", fuzz_app, config=config)


boundaries = schemathesis.pytest.from_fixture("boundary_schema")


@boundaries.include(path_regex=PAGED).parametrize()
@hypothesis_settings(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_paged_operations_refuse_what_their_schema_refuses(case):
    """`/audit?page=-1` was a 200 (the running audit's progress) where the schema says
    page >= 0, and `/diff?page=0` the first page where it says page >= 1."""
    case.call_and_validate(checks=[*CHECKS, negative_data_rejection])


@pytest.fixture(scope="module")
def api_schema(fuzz_app):
    # every phase, the coverage phase's schema-violating bodies among them
    return schemathesis.openapi.from_asgi("/openapi.json", fuzz_app)


api_operations = schemathesis.pytest.from_fixture("api_schema")


@api_operations.include(path_regex="^/api/").exclude(path_regex=HEAVY).parametrize()
@hypothesis_settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_the_json_api_refuses_what_its_schema_refuses(case):
    """A JSON body is read as its schema says, with no coercion: `"bytes": 0` for a boolean
    and `"ids": [false]` for integers were accepted (Pydantic's lax mode) where the schema
    allows only true/false and integers (the request models are strict)."""
    case.call_and_validate(checks=[*CHECKS, negative_data_rejection])
