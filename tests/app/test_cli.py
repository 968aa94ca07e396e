"""The `tokvis` command, run for real in a subprocess: the installed console script and
`python -m app.cli`. Outputs are parsed and compared with the engine's own answers; every error
is one line on stderr with a non-zero status, never a traceback."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import tokenizers_core as tc
from tests.servers import run_uvicorn
from tokenizers_core.corpora import load_corpus
from tokenizers_core.implementations.stepping import training_run

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).parent / "tokvis"


def tokvis(
    *args: str,
    stdin: bytes | None = None,
    module: bool = False,
    cwd: Path | None = None,
    env: dict | None = None,
) -> subprocess.CompletedProcess:
    """Run the installed `tokvis` (or `python -m app.cli`), from a directory that is not the
    checkout unless `cwd` says otherwise."""
    if module:
        cmd = [sys.executable, "-m", "app.cli", *args]
        cwd = cwd or ROOT
    else:
        assert SCRIPT.exists(), f"{SCRIPT} is missing: reinstall with `pip install -e .`"
        cmd = [str(SCRIPT), *args]
    full_env = {**os.environ, "NO_COLOR": "", **(env or {})}
    return subprocess.run(
        cmd, input=stdin, capture_output=True, cwd=cwd or "/", env=full_env, timeout=120
    )


def one_line_error(proc: subprocess.CompletedProcess, status: int = 1) -> str:
    err = proc.stderr.decode()
    assert proc.returncode == status, (proc.returncode, err)
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("tokvis"), err
    return err


# ---- encode ------------------------------------------------------------------------------------
@pytest.mark.heavy
def test_encode_json_is_the_engines_encoding():
    text = "Hello,  world!\nnaïve 東京"
    proc = tokvis("encode", "-t", "cl100k_base", "--json", text)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    enc = tc.load("cl100k_base").encode(text)
    assert data == {"ids": enc.ids, "tokens": enc.tokens, "offsets": [list(o) for o in enc.offsets]}


@pytest.mark.heavy
def test_encode_shows_chips_with_visible_whitespace_ids_and_counts():
    proc = tokvis("encode", "-t", "gpt2", "a  b\nc", module=True)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    # chips: spaces as ·, the newline as ↵ (and the printed line ends there)
    assert lines[0] == "a · ·b ↵"
    assert lines[1] == "c"
    enc = tc.load("gpt2").encode("a  b\nc")
    assert lines[2] == "ids: " + " ".join(map(str, enc.ids))
    assert lines[3].startswith(f"{len(enc)} tokens · 6 characters · 6 bytes")
    assert "\x1b[" not in proc.stdout.decode()  # not a terminal: no colour


def test_encode_colours_on_request_and_reads_stdin():
    proc = tokvis("encode", "-t", "bert-base-uncased", "--color", "-", stdin="Hi there".encode())
    out = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[30;48;5;" in out and "\x1b[1;7m[CLS]\x1b[0m" in out  # specials stand out
    assert "ids: 101 7632 2045 102" in out


@pytest.mark.heavy
def test_encode_a_tokenizer_file(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nHug\n##s\nhug\n", encoding="utf-8")
    cased = json.loads(tokvis("encode", "-t", str(vocab), "--cased", "--json", "Hugs").stdout)
    lower = json.loads(tokvis("encode", "-t", str(vocab), "--lowercase", "--json", "Hugs").stdout)
    assert cased["tokens"] == ["[CLS]", "Hug", "##s", "[SEP]"]
    assert lower["tokens"] == ["[CLS]", "hug", "##s", "[SEP]"]


def test_encode_a_hugging_face_tokenizer_json_as_hugging_face_does(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers.pre_tokenizers import ByteLevel

    hf = tokenizers.Tokenizer(tokenizers.models.BPE())
    hf.pre_tokenizer = ByteLevel(add_prefix_space=False)
    corpus = load_corpus("udhr/eng").splitlines()
    hf.train_from_iterator(
        corpus,
        tokenizers.trainers.BpeTrainer(
            vocab_size=400, initial_alphabet=ByteLevel.alphabet(), show_progress=False
        ),
    )
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    text = "Everyone has the right to education. Ünïcödé 東京"
    proc = tokvis("encode", "-t", str(path), "--json", text)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    theirs = hf.encode(text)
    assert data == {
        "ids": theirs.ids,
        "tokens": theirs.tokens,
        "offsets": [list(o) for o in theirs.offsets],
    }


@pytest.mark.heavy
@pytest.mark.parametrize(
    "args, message",
    [
        (("encode", "-t", "no-such-tokenizer", "x"), "no such file, and not a bundled tokeniser"),
        (
            ("encode", "-t", "gpt2", "--pattern", "gpt2", "x"),
            "--pattern applies only to tokenizer files",
        ),
        (
            ("encode", "-t", "gpt2", "--from", "tiktoken", "x"),
            "--from applies only to tokenizer files",
        ),
        (("encode", "-t", "/etc/hostname", "x"), "tokvis encode: error:"),
        (("encode", "-t", "/nonexistent/vocab.txt", "x"), "no such file"),
        (("encode", "-t", "char", "--allow-special", "x"), "reads no special tokens"),
        (("compare", "-t", "gpt2", "x"), "two or more"),
        (("train", "bpe", "no-such-corpus", "--vocab-size", "10"), "not a bundled corpus"),
        (("train", "nope", "udhr/eng", "--vocab-size", "10"), "unknown algorithm"),
        (("train", "bpe", "udhr/eng", "--vocab-size", "0"), "vocab_size"),
        (("train", "bpe", "udhr/eng", "--vocab-size", "50", "--pattern", "gpt2"), "does not take"),
        (
            ("train", "byte_bpe", "udhr/eng", "--vocab-size", "300", "--special-tokens", "{x"),
            "not JSON",
        ),
        (("trace", "bpe", "udhr/eng", "--vocab-size", "50", "--steps", "x"), "--steps takes A:B"),
        (("serve", "--port", "70000"), "--port"),
        (("serve", "--workers", "0"), "--workers"),
    ],
)
def test_errors_are_one_line_and_status_1(args, message):
    err = one_line_error(tokvis(*args))
    assert message in err


@pytest.mark.heavy
def test_non_utf8_input_and_usage_errors():
    assert "not UTF-8" in one_line_error(tokvis("encode", "-t", "gpt2", "-", stdin=b"\xff\xfe"))
    err = one_line_error(tokvis("encode", "-t", "gpt2"), status=2)  # TEXT missing
    assert "required" in err and "--help" in err
    one_line_error(tokvis("train", "bpe", "udhr/eng"), status=2)  # --vocab-size missing


def test_the_command_does_not_import_the_web_framework():
    code = (
        "import sys; from app.cli import main; main(['encode', '-t', 'char', 'hi']); "
        "print('fastapi' in sys.modules, 'uvicorn' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout
    assert out.splitlines()[-1] == "False False"


# ---- compare -----------------------------------------------------------------------------------
@pytest.mark.heavy
def test_compare_prints_a_table_and_the_tokens_of_each():
    text = "tokenization naïve"
    proc = tokvis("compare", "-t", "gpt2", "-t", "bert-base-uncased", text)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert lines[0].split() == ["tokenizer", "tokens", "chars/token"]
    for line, name in zip(lines[1:3], ("gpt2", "bert-base-uncased")):
        n = len(tc.load(name).encode(text))
        assert line.split() == [name, str(n), f"{len(text) / n:.2f}"]
    # the chips show the tokens, as the web does: BERT uncased's normaliser made "naive"
    assert "bert-base-uncased:" in lines and "[CLS] token ization naive [SEP]" in lines


@pytest.mark.heavy
def test_serve_takes_a_database_url_as_db_reads_one(tmp_path):
    """`serve --db URL` is the URL (as `tokvis db` and `worker` read --db), not a file named
    like it: nothing appears in the working directory, and the unreachable database is one line."""
    proc = tokvis(
        "serve", "--port", "0", "--db", "postgresql+psycopg://nobody@127.0.0.1:9/x", cwd=tmp_path
    )
    assert proc.returncode != 0 and "Traceback" not in proc.stderr.decode()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.heavy
def test_encode_reads_a_file_and_counts(tmp_path):
    text = "Hello, world!\n東京 naïve\n" * 50
    path = tmp_path / "text.txt"
    path.write_text(text, encoding="utf-8")
    n = len(tc.load("cl100k_base").encode(text))
    proc = tokvis("encode", "-t", "cl100k_base", "-f", str(path), "--count")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == f"{n}\n"
    proc = tokvis("encode", "-t", "cl100k_base", "--file", str(path), "--count", "--json")
    assert json.loads(proc.stdout) == {
        "tokenizer": "cl100k_base",
        "tokens": n,
        "characters": len(text),
        "bytes": len(text.encode("utf-8")),
    }
    proc = tokvis("encode", "-t", "cl100k_base", "-f", str(path), "--json")
    assert json.loads(proc.stdout)["ids"] == tc.load("cl100k_base").encode(text).ids
    assert "no such file" in one_line_error(tokvis("encode", "-f", str(tmp_path / "none"))).lower()
    assert "not allowed with" in one_line_error(tokvis("encode", "-f", str(path), "hi"), 2)
    assert "is required" in one_line_error(tokvis("encode"), status=2)


@pytest.mark.heavy
def test_encode_special_switch_as_the_page_and_the_api():
    """`--special` / `--no-special`; left out, tiktoken's own default refuses the text."""
    text = "<|endoftext|>Hi"
    on = json.loads(tokvis("encode", "-t", "cl100k_base", "--special", "--json", text).stdout)
    off = json.loads(tokvis("encode", "-t", "cl100k_base", "--no-special", "--json", text).stdout)
    assert on["ids"] == [100257, 13347] and len(off["ids"]) > 2
    old = json.loads(
        tokvis("encode", "-t", "cl100k_base", "--allow-special", "--json", text).stdout
    )
    assert old == on
    assert "--special" in one_line_error(tokvis("encode", "-t", "cl100k_base", text))


# ---- train, trace, export ----------------------------------------------------------------------
def test_train_prints_a_summary_of_what_train_learns():
    proc = tokvis("train", "bpe", "udhr/eng", "--vocab-size", "300")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    tok = tc.train("bpe", load_corpus("udhr/eng").splitlines(), 300)
    assert f"vocabulary: {tok.vocab_size} tokens, {len(tok.model.merges)} merges" in out
    first = ", ".join(f"{a} + {b}" for a, b in tok.model.merges[:8])
    assert f"first merges: {first}" in out


@pytest.mark.heavy
def test_train_from_stdin_with_a_progress_bar_on_stderr():
    corpus = load_corpus("udhr/eng").encode()
    proc = tokvis("train", "wordpiece", "-", "--vocab-size", "400", "--progress", stdin=corpus)
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr.decode()
    assert "training wordpiece [" in err and "merges" in err and err.endswith("\n")
    assert "trained on stdin" in proc.stdout.decode()
    quiet = tokvis("train", "wordpiece", "-", "--vocab-size", "400", stdin=corpus)
    assert quiet.stderr == b""  # not a terminal: no bar


TEXT = "Everyone has the right to life, liberty and security of person. Ünïcödé"


@pytest.mark.heavy
def test_train_saves_in_the_format_of_the_extension(tmp_path):
    """byte_bpe -> .tiktoken (tiktoken reads it), unigram -> .model (sentencepiece reads it)."""
    tiktoken = pytest.importorskip("tiktoken")
    spm = pytest.importorskip("sentencepiece")
    from tokenizers_core.pre_tokenizers import PRESETS

    lines = load_corpus("udhr/eng").splitlines()

    ranks = tmp_path / "tok.tiktoken"
    proc = tokvis("train", "byte_bpe", "udhr/eng", "--vocab-size", "300", "-o", str(ranks))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.decode().startswith(f"wrote {ranks} (tiktoken, 300 tokens")
    ours = tc.train("byte_bpe", lines, 300)
    mergeable = {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in ranks.read_text().splitlines())
    }
    enc = tiktoken.Encoding(
        "trained", pat_str=PRESETS["gpt2"], mergeable_ranks=mergeable, special_tokens={}
    )
    assert enc.encode(TEXT) == ours.encode(TEXT).ids

    model = tmp_path / "uni.model"
    proc = tokvis(
        "train",
        "unigram",
        "-",
        "--vocab-size",
        "300",
        "-o",
        str(model),
        stdin="\n".join(lines).encode(),
    )
    assert proc.returncode == 0, proc.stderr
    sp = spm.SentencePieceProcessor(model_file=str(model))
    assert sp.encode(TEXT) == tc.train("unigram", lines, 300).encode(TEXT).ids


@pytest.mark.heavy
def test_export_converts_a_bundled_tokenizer(tmp_path):
    out = tmp_path / "vocab.txt"
    proc = tokvis("export", "bert-base-uncased", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert tc.load(str(out)).encode(TEXT).ids == tc.load("bert-base-uncased").encode(TEXT).ids
    named = tmp_path / "gpt2.ranks"  # no known extension: --format
    assert tokvis("export", "gpt2", "-o", str(named), "--format", "tiktoken").returncode == 0
    assert tc.load(str(named), pattern="gpt2").encode(TEXT).ids == tc.load("gpt2").encode(TEXT).ids


@pytest.mark.parametrize(
    "args, message",
    [
        (("export", "gpt2", "-o", "/tmp/x.bin"), "cannot tell the format"),
        (("export", "gpt2", "-o", "/nonexistent/x.tiktoken"), "cannot write"),
        (("export", "gpt2", "-o", "/tmp/x.tiktoken", "--format", "nope"), "unknown format"),
        (("train", "wordpiece", "udhr/eng", "--vocab-size", "300", "-o", "/tmp/x.tiktoken"), ""),
    ],
)
def test_saving_errors_are_one_line(args, message):
    assert message in one_line_error(tokvis(*args))


@pytest.mark.heavy
def test_trace_prints_the_steps_as_json_lines():
    proc = tokvis("trace", "bpe", "udhr/eng", "--vocab-size", "100", module=True)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    run = training_run("bpe", load_corpus("udhr/eng").splitlines(), 100)
    assert lines == [s.to_dict() for s in run]
    assert {d["kind"] for d in lines} == {"bpe_merge"}
    some = tokvis("trace", "unigram", "udhr/eng", "--vocab-size", "300", "--steps", "1:3")
    rounds = [json.loads(line) for line in some.stdout.decode().splitlines()]
    expected = [
        s.to_dict() for s in training_run("unigram", load_corpus("udhr/eng").splitlines(), 300)
    ][1:3]
    assert rounds == expected and rounds[0]["kind"] == "unigram_round"


@pytest.mark.heavy
def test_ctrl_c_exits_130_quietly_and_a_closed_pipe_quietly():
    proc = subprocess.Popen(
        [str(SCRIPT), "trace", "bpe", "botchan", "--vocab-size", "20000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd="/",
    )
    proc.stdout.readline()  # training is under way (and soon blocks on
    proc.send_signal(signal.SIGINT)  # the full pipe)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err == b""
    proc = subprocess.Popen(
        [str(SCRIPT), "trace", "bpe", "botchan", "--vocab-size", "20000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd="/",
    )
    proc.stdout.readline()
    proc.stdout.close()  # `| head -1`
    assert proc.wait(timeout=60) == 141
    assert b"Traceback" not in proc.stderr.read()


@pytest.mark.heavy
def test_serve_runs_the_app_from_any_directory(tmp_path):
    import urllib.request

    command = [str(SCRIPT), "serve", "--db", str(tmp_path / "store.sqlite3")]
    with run_uvicorn(command=command, cwd=tmp_path, stdout=subprocess.DEVNULL) as server:
        page = urllib.request.urlopen(f"{server.url}/?text=hi", timeout=5)
        assert page.status == 200 and b'src="/static/htmx.min.js"' in page.read()
        css = urllib.request.urlopen(f"{server.url}/static/app.css", timeout=5)
        assert css.status == 200 and css.headers["content-type"].startswith("text/css")
        assert (tmp_path / "store.sqlite3").exists()


def test_a_bug_is_still_one_line(monkeypatch, capsys):
    """Not bad input but a bug in the command: one line naming it, status 70."""
    from app import cli

    def broken(args):
        raise RuntimeError("something\nbroke")

    monkeypatch.setattr(cli.encoding, "encode", broken)
    monkeypatch.delenv("TOKVIS_DEBUG", raising=False)
    assert cli.main(["encode", "x"]) == 70
    err = capsys.readouterr().err
    assert err == (
        "tokvis encode: internal error: RuntimeError: something broke "
        "(TOKVIS_DEBUG=1 shows the traceback)\n"
    )


@pytest.mark.parametrize(
    "name, typed, special",
    [
        ("bert-base-uncased", "[CLS] hi", "[CLS]"),
        ("cl100k_base", "<|endoftext|> hi", "<|endoftext|>"),
    ],
)
def test_allow_special_reads_typed_special_tokens_for_every_kind(name, typed, special):
    """As the visualiser's switch: with --no-special a typed special token is ordinary text
    (BERT's tokenizer.json-style added tokens as much as tiktoken's); with --special (or its
    old spelling --allow-special), one token more than the post-processor adds."""
    plain = json.loads(tokvis("encode", "-t", name, "--json", "--no-special", typed).stdout)
    parsed = json.loads(tokvis("encode", "-t", name, "--json", "--allow-special", typed).stdout)
    assert parsed["tokens"].count(special) == plain["tokens"].count(special) + 1


# ---- labels and colours -----------------------------------------------------------------------
def test_cli_compare_labels_a_file_by_its_name(tmp_path, capsys):
    from app.cli import main

    path = tmp_path / "deep" / "dir" / "mine.json"
    path.parent.mkdir(parents=True)
    tc.load("bert-base-uncased").save(str(path))
    assert main(["compare", "--no-color", "-t", str(path), "-t", "char", "hi there"]) == 0
    out = capsys.readouterr().out
    assert str(tmp_path) not in out
    assert out.splitlines()[1].split()[0] == "mine.json" and "\nmine.json:" in out


def test_cli_no_color_still_marks_unknown_tokens(capsys):
    from app.cli import main

    assert main(["encode", "--no-color", "-t", "bert-base-uncased", "a ☃ b"]) == 0
    out = capsys.readouterr().out
    assert "[UNK ☃]" in out


def test_cli_colour_marks_unknown_tokens_too(capsys):
    from app.cli import main

    assert main(["encode", "--color", "-t", "bert-base-uncased", "a ☃ b"]) == 0
    assert "[UNK ☃]" in capsys.readouterr().out


@pytest.mark.heavy
def test_cli_encode_no_special_tokens():
    def run(*flags):
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "app.cli",
                "encode",
                "-t",
                "bert-base-uncased",
                "--json",
                *flags,
                "hi there",
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        ).stdout
        return json.loads(out)["tokens"]

    assert run() == ["[CLS]", "hi", "there", "[SEP]"]
    assert run("--no-special-tokens") == ["hi", "there"]
