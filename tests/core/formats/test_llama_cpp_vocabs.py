"""llama.cpp's own tokenizer tests, ported: every `ggml-vocab-*.gguf`, every expected line.

llama.cpp's `tests/test-tokenizer-0.cpp` reads `<vocab>.gguf.inp` (texts separated by the line
`__ggml_vocab_test__`: the file is split at "\\n__ggml_vocab_test__\\n") and `<vocab>.gguf.out`
(one line of space-separated ids per text), then tokenizes each text with
`common_tokenize(ctx, text, add_special=false, parse_special=false)`: no BOS/EOS, and control
tokens typed in the text are read as text (user-defined ones are still matched whole). We do
the same with `encode(text, add_special_tokens=False, encode_special_tokens=True)`.

The files are not in this repository: `scripts/fetch_llama_cpp_vocabs.py` puts them in a
cache directory. Without it the module skips; under CI=true it runs the script first and fails
if the download fails. Vocabularies without an .inp/.out pair are checked to load.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tokenizers_core as tc

# ~700 cases over 19 files (loading them is most of it): about a minute on 2 cores
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "fetch_llama_cpp_vocabs.py"
SEPARATOR = "\n__ggml_vocab_test__\n"
FETCH_HINT = f"llama.cpp's vocab files are not fetched: run `python {SCRIPT.relative_to(ROOT)}`"


def _cache_dir() -> Path:
    root = os.environ.get("TOKVIS_CACHE") or os.path.join(Path.home(), ".cache", "tokvis")
    version = _pinned_version()
    return Path(root) / "llama-cpp-vocabs" / version


def _pinned_version() -> str:
    for line in SCRIPT.read_text().splitlines():
        if line.startswith("VERSION = "):
            return line.split('"')[1]
    raise AssertionError("scripts/fetch_llama_cpp_vocabs.py pins no VERSION")


def read_tests(inp: str, out: str) -> list[tuple[str, list[int]]]:
    """The (text, ids) pairs of an .inp/.out pair, as `read_tests` in test-tokenizer-0.cpp
    reads them: the .inp cut at the separator (a trailing separator ends the last text), one
    .out line per text.

    >>> read_tests("a\\n__ggml_vocab_test__\\n b\\n__ggml_vocab_test__\\n", "64\\n 275 65 \\n")
    [('a', [64]), (' b', [275, 65])]
    """
    texts = []
    pos = 0
    while pos < len(inp):
        nxt = inp.find(SEPARATOR, pos)
        if nxt < 0:
            texts.append(inp[pos:])
            break
        texts.append(inp[pos:nxt])
        pos = nxt + len(SEPARATOR)
    lines = out.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(texts) != len(lines):
        raise AssertionError(f"{len(texts)} texts but {len(lines)} expected lines")
    return [(text, [int(x) for x in line.split()]) for text, line in zip(texts, lines)]


# ---- what still differs from llama.cpp, by vocabulary: (test index) -> reason --------------
# Each group is strict: a case that starts to pass fails the run until it is moved out.
KNOWN_FAILURES: dict[str, dict[int, str]] = {}

DIRECTORY = _cache_dir()
VOCABS = sorted(p.name[len("ggml-vocab-") : -len(".gguf")] for p in DIRECTORY.glob("*.gguf"))


def _cases() -> list[object]:
    params: list[object] = []
    for vocab in VOCABS:
        path = DIRECTORY / f"ggml-vocab-{vocab}.gguf"
        inp, out = Path(f"{path}.inp"), Path(f"{path}.out")
        if not inp.is_file():
            continue
        # the C++ test reads the files as bytes: "\r" stays as it is
        pairs = read_tests(inp.read_bytes().decode(), out.read_bytes().decode())
        for i, (text, ids) in enumerate(pairs):
            marks = []
            reason = KNOWN_FAILURES.get(vocab, {}).get(i)
            if reason:
                marks.append(pytest.mark.xfail(reason=reason, strict=True))
            params.append(pytest.param(vocab, text, ids, id=f"{vocab}-{i}", marks=marks))
    return params


@pytest.fixture(scope="session")
def vocab_dir() -> Path:
    """The cache directory; under CI=true fetched first (a failed download fails the test)."""
    if not (DIRECTORY / ".complete").is_file():
        if os.environ.get("CI") != "true":
            pytest.skip(FETCH_HINT)
        done = subprocess.run(
            [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            pytest.fail(f"fetching llama.cpp's vocab files failed: {done.stderr.strip()}")
    return DIRECTORY


_LOADED: dict[str, object] = {}


def _load(directory: Path, vocab: str) -> object:
    """Each file loaded once per worker (a file that fails to load fails each of its cases
    with the same error, without loading it again)."""
    if vocab not in _LOADED:
        try:
            _LOADED[vocab] = tc.load(str(directory / f"ggml-vocab-{vocab}.gguf"))
        except Exception as exc:  # kept, to raise again for every case of the file
            _LOADED[vocab] = exc
    loaded = _LOADED[vocab]
    if isinstance(loaded, Exception):
        raise loaded
    return loaded


CASES = _cases()


@pytest.mark.skipif(not CASES and os.environ.get("CI") != "true", reason=FETCH_HINT)
@pytest.mark.parametrize(("vocab", "text", "ids"), CASES or [pytest.param("", "", [], id="none")])
def test_encodes_as_llama_cpp(vocab_dir: Path, vocab: str, text: str, ids: list[int]) -> None:
    if not vocab:
        pytest.fail("the fetch ran but no .inp/.out pairs were collected: rerun pytest")
    tok = _load(vocab_dir, vocab)
    got = tok.encode(text, add_special_tokens=False, encode_special_tokens=True).ids  # type: ignore[attr-defined]
    assert got == ids


@pytest.mark.skipif(not VOCABS and os.environ.get("CI") != "true", reason=FETCH_HINT)
@pytest.mark.parametrize("vocab", VOCABS or ["none"])
def test_every_vocab_file_loads(vocab_dir: Path, vocab: str) -> None:
    if vocab == "none":
        pytest.fail("the fetch ran but no vocab files were collected: rerun pytest")
    assert _load(vocab_dir, vocab).vocab_size > 0  # type: ignore[attr-defined]


@pytest.mark.skipif(not VOCABS and os.environ.get("CI") != "true", reason=FETCH_HINT)
def test_phi3s_user_defined_eos_typed_in_the_text_is_text_with_parsing_off(vocab_dir: Path):
    """ggml-vocab-phi-3.gguf types `</s>` (id 2) USER_DEFINED; llama.cpp flags it CONTROL by
    its text (its end-of-generation list), so with parse_special=false it is text: "▁</",
    "s", ">" by the scores (llama.cpp's SPM joins the best-scored pair; `</s>` itself scores
    -1000). With special tokens parsed it is id 2, and the spaces after it are eaten (the
    RSTRIP llama.cpp gives Phi-3's special tokens)."""
    if "phi-3" not in VOCABS:
        pytest.skip("no ggml-vocab-phi-3.gguf in the cache")
    tok = _load(vocab_dir, "phi-3")
    text = "Hi </s> there"
    plain = tok.encode(text, add_special_tokens=False, encode_special_tokens=True)  # type: ignore[attr-defined]
    assert plain.ids == [6324, 1533, 29879, 29958, 727]  # ▁Hi ▁</ s > ▁there
    assert tok.decode(plain.ids) == text  # type: ignore[attr-defined]
    assert tok.encode(text, add_special_tokens=False).ids == [6324, 29871, 2, 727]  # type: ignore[attr-defined]
