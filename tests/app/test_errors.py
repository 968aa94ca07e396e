"""Errors that mean what they say: the core's `InvalidInput` is a 422, its `NotFound` a 404,
and anything else (a `KeyError` or a plain `ValueError` from a bug) a 500.

Before, the app answered every ValueError with 422 and every LookupError with 404, so a
`KeyError` from a bug looked like "not found". Each answer is checked twice: as JSON for the
API (`{"detail": ...}`) and as the error page (or the page's own form) for HTML.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.services import diff as diff_service
from tokenizers_core.errors import InvalidInput, NotFound

ERRORS = {
    "invalid": (InvalidInput("the count must be a whole number"), 422),
    "missing": (NotFound("no stored corpus has sha256 abc"), 404),
    "bug": (KeyError("merges"), 500),
    "plain": (ValueError("not enough values to unpack"), 500),
    "digits": (ValueError("Exceeds the limit (4300 digits) for integer string conversion"), 422),
}


@pytest.fixture(scope="module")
def raising_app(settings):
    """An app of our own with two routes that raise the error named in their path: one under
    /api (answered as JSON), one a page (answered with error.html)."""
    from app.main import create_app

    app = create_app(settings)

    def raise_(kind: str) -> dict:
        raise ERRORS[kind][0]

    app.get("/api/test-errors/{kind}")(raise_)
    app.get("/test-errors/{kind}")(raise_)
    return app


@pytest.fixture(scope="module")
def lenient(raising_app):
    """A client that answers a server error with a 500, as a real server does."""
    return TestClient(raising_app, raise_server_exceptions=False)


def test_the_domain_errors_keep_the_contract_of_the_builtins():
    """A caller that catches ValueError or LookupError (the core's documented contract) still
    catches them."""
    assert issubclass(InvalidInput, ValueError) and issubclass(NotFound, LookupError)
    assert not issubclass(KeyError, NotFound) and not issubclass(ValueError, InvalidInput)


@pytest.mark.parametrize("kind", ["invalid", "missing"])
def test_the_api_answers_a_domain_error_as_json(lenient, kind):
    exc, status = ERRORS[kind]
    r = lenient.get(f"/api/test-errors/{kind}")
    assert r.status_code == status
    assert r.json() == {"detail": str(exc)}


@pytest.mark.parametrize("kind", ["invalid", "missing"])
def test_a_page_answers_a_domain_error_with_the_error_page(lenient, kind):
    exc, status = ERRORS[kind]
    r = lenient.get(f"/test-errors/{kind}")
    assert r.status_code == status
    assert r.headers["content-type"].startswith("text/html")
    assert str(exc) in r.text


@pytest.mark.parametrize("kind", ["bug", "plain"])
@pytest.mark.parametrize("prefix", ["/api", ""])
def test_a_bug_is_a_500_not_a_missing_page_or_bad_input(lenient, kind, prefix):
    r = lenient.get(f"{prefix}/test-errors/{kind}")
    assert r.status_code == 500
    assert "merges" not in r.text and "unpack" not in r.text  # a bug's message stays inside


@pytest.mark.parametrize("prefix", ["/api", ""])
def test_pythons_refusal_of_a_long_number_is_the_users_422(lenient, prefix):
    """The one plain ValueError that is always the user's: `int()` of more than 4,300 digits,
    wherever a typed number is read; said plainly, not in Python's words."""
    r = lenient.get(f"{prefix}/test-errors/digits")
    assert r.status_code == 422
    assert "is too long" in r.text and "integer string conversion" not in r.text


@pytest.mark.parametrize("kind", ["bug", "plain"])
def test_a_bug_raises_in_the_tests(raising_app, kind):
    """With the tests' default client a bug is not answered at all: it fails the test."""
    strict = TestClient(raising_app)
    with pytest.raises(type(ERRORS[kind][0])):
        strict.get(f"/api/test-errors/{kind}")


# ---- a real route, its service monkeypatched ----------------------------------------------------
def _raising(exc: Exception):
    def load_texts(*args, **kwargs):
        raise exc

    return load_texts


@pytest.mark.parametrize("kind", ["invalid", "missing", "bug"])
def test_the_diff_api_answers_what_its_service_raised(client, app, monkeypatch, kind):
    exc, status = ERRORS[kind]
    monkeypatch.setattr(diff_service, "load_texts", _raising(exc))
    r = TestClient(app, raise_server_exceptions=False).get(
        "/api/diff", params={"a": "gpt2", "b": "cl100k_base"}
    )
    assert r.status_code == status
    if status < 500:
        assert r.json() == {"detail": str(exc)}


@pytest.mark.parametrize("kind", ["invalid", "missing", "bug"])
def test_the_diff_page_shows_a_domain_error_in_place_and_fails_on_a_bug(
    client, app, monkeypatch, kind
):
    """The page keeps its form and shows the message for bad input (`deps.BAD_INPUT`); a
    KeyError is not bad input, so it is not shown as one."""
    exc, status = ERRORS[kind]
    monkeypatch.setattr(diff_service, "load_texts", _raising(exc))
    r = TestClient(app, raise_server_exceptions=False).get("/diff", params={"source": "text"})
    assert r.status_code == status
    if status < 500:
        assert str(exc) in r.text and "<form" in r.text


def test_a_bug_behind_a_real_route_raises_in_the_tests(client, monkeypatch):
    monkeypatch.setattr(diff_service, "load_texts", _raising(KeyError("merges")))
    with pytest.raises(KeyError):
        client.get("/api/diff", params={"a": "gpt2", "b": "cl100k_base"})


# ---- user input that Python itself refuses, said as InvalidInput where it is read --------------
# "²" is a digit to str.isdigit and not to int(); 5,000 digits are more than int() reads. Before,
# the blanket ValueError handler answered both 422 with Python's own message; now the place that
# reads the field says what is wrong.
@pytest.mark.parametrize("typed", ["²", "9" * 5000])
def test_a_token_budget_python_cannot_read_is_invalid_input(typed):
    from app.services.visualiser import parse_budget

    with pytest.raises(InvalidInput, match="the token budget is a whole number"):
        parse_budget(typed)


@pytest.mark.parametrize("action", ["remove-²", "up-" + "9" * 5000])
def test_a_chat_editor_action_python_cannot_read_is_invalid_input(action):
    from app.services.chat import edit

    with pytest.raises(InvalidInput, match="unknown editor action"):
        edit([{"role": "user", "content": "hi"}], action)


@pytest.mark.parametrize("rank", ["²", "9" * 5000])
def test_a_special_tokens_line_python_cannot_read_is_invalid_input(rank):
    from app.uploads import parse_special_tokens

    with pytest.raises(InvalidInput, match="expected `TOKEN ID`"):
        parse_special_tokens(f"<|endoftext|> {rank}")


def test_a_plain_value_error_of_a_file_reader_is_the_files_invalid_input(monkeypatch):
    """`uploads.parse` reads an uploaded file: whatever a reader lets through (here a
    UnicodeDecodeError, a ValueError) is the file's fault, named as such."""
    import tokenizers_core as tc
    from app import uploads

    def load(*args, **kwargs):
        return b"\xff".decode("utf-8")

    monkeypatch.setattr(tc, "load", load)
    with pytest.raises(InvalidInput, match="cannot read this Hugging Face tokenizer.json"):
        uploads.parse(b"{}", "hf_json", {})


# ---- the database away: 503 with Retry-After, then back -----------------------------------------
def _pg_ctl(server, *args: str) -> None:
    """pg_ctl on `server`'s data directory, on its own port (a restart keeps the URL)."""
    options = f"-p {server.port} -k {server.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
    done = server._run("pg_ctl", "-D", str(server.data), "-o", options, "-w", *args)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_a_database_restart_is_503_with_retry_after_then_served_again(monkeypatch, tmp_path):
    """A PostgreSQL restart answered 55 x 500 over ~3 s. While the database is away, every
    request that needs it is a 503 with Retry-After, as JSON and as a page; once it is back,
    the same requests are served (the pool checks connections before use)."""
    from tests.postgres import PostgresServer, postgres_missing

    if postgres_missing():
        pytest.skip(postgres_missing())
    from dataclasses import replace

    from app.main import create_app
    from tests.conftest import make_settings

    monkeypatch.setenv("TOKVIS_SECRET_KEY", "a-test-secret-of-enough-length")
    server = PostgresServer().start()
    try:
        url = server.create_database("restart")
        with TestClient(
            create_app(replace(make_settings(tmp_path / "unused"), database_url=url))
        ) as client:
            corpus = {"text": "low lower newest widest", "name": "restart"}
            stored = client.post("/api/corpora", json=corpus)
            assert stored.status_code == 201, stored.text
            path = f"/api/corpora/{stored.json()['sha256']}"
            assert client.get(path).status_code == 200
            _pg_ctl(server, "-m", "fast", "stop")
            api = client.get(path)
            assert api.status_code == 503 and api.headers["Retry-After"] == "5", api.text
            assert "cannot be reached right now" in api.json()["detail"]
            page = client.get("/corpora")
            assert page.status_code == 503 and "Retry-After" in page.headers
            _pg_ctl(server, "-l", str(server.log), "start")
            again = client.get(path)
            assert again.status_code == 200 and again.json()["bytes"] == 23
    finally:
        server.stop()
