"""Check our Tekken reader against mistral-common's own `Tekkenizer`, on every Tekken file that
mistral-common ships (`tekken_240718.json`, `tekken_240911.json`, ...) or that is named on the
command line, and on one made from the first as newer models ship theirs (version v13, its special
tokens listed): the ids of texts in many scripts (with special-token strings typed in them, which
both read as ordinary text), the special tokens' ids, the vocabulary size and decoding.

Needs mistral-common importable (not a dependency of tokvis; e.g. `python -m venv /tmp/mc &&
/tmp/mc/bin/pip install mistral-common`). Run from the repository:

    /tmp/mc/bin/python benchmarks/verify_tekken.py [more/tekken.json ...]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tokenizers_core as tc  # noqa: E402
from tokenizers_core.corpora import load_corpus, udhr_languages  # noqa: E402

try:
    import mistral_common
    from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer
except ImportError as exc:
    sys.exit(f"mistral-common is not importable ({exc}); pip install mistral-common")

TEXTS = [load_corpus(f"udhr/{lang.code}")[:2000] for lang in udhr_languages()] + [
    "<s>[INST] What is 2+2? [/INST] 4</s>",
    "[SYSTEM_PROMPT]be brief[/SYSTEM_PROMPT][IMG][TOOL_CALLS]<SPECIAL_42><pad>",
    "Hello, world! ﬁnancial ① ＡＢＣ 東京 👍🏽 👨‍👩‍👧 🇯🇵",
    "def f(x):\n\treturn x ** 2  # squared\r\n\n\n   ",
    "",
]
SPECIALS = [
    "<unk>",
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "[IMG]",
    "<pad>",
    "[SYSTEM_PROMPT]",
    "[THINK]",
]


def verify(path: Path) -> bool:
    """Compare one file; print a line per check, and return whether all agree."""
    ref = Tekkenizer.from_file(path)
    ours = tc.load(str(path))
    n_special = ref.num_special_tokens
    bad = [t[:40] for t in TEXTS if ours.encode(t).ids != ref.encode(t, bos=False, eos=False)]
    specials = [s for s in SPECIALS if s in ref._special_tokens_reverse_vocab]
    special_ok = all(ours.token_to_id(s) == ref.get_special_token(s) for s in specials)
    filler = f"<SPECIAL_{n_special - 1}>"
    special_ok = special_ok and ours.token_to_id(filler) == ref.get_special_token(filler)
    size_ok = ours.vocab_size == ref.n_words
    ids = ref.encode(TEXTS[-3], bos=True, eos=True)
    decode_ok = ours.decode(ids, skip_special_tokens=True) == ref.decode(
        ids, special_token_policy=SpecialTokenPolicy.IGNORE
    )
    print(
        f"{path.name}: version {ref.version.value}, {ref.n_words:,} ids "
        f"({n_special:,} special); texts {len(TEXTS) - len(bad)}/{len(TEXTS)} same ids; "
        f"special ids {'same' if special_ok else 'DIFFER'} ({len(specials) + 1} checked); "
        f"vocab size {'same' if size_ok else 'DIFFERS'}; "
        f"decode {'same' if decode_ok else 'DIFFERS'}"
    )
    for text in bad:
        print(f"  differs: {text!r}")
    return not bad and special_ok and size_ok and decode_ok


def listing_special_tokens(source: Path, folder: Path) -> Path:
    """A v13 file made from `source` as newer models ship theirs: its special tokens listed
    (with a non-control one), 100 special ids, the first 5,000 ranks."""
    tekken = json.loads(source.read_text(encoding="utf-8"))
    names = ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[THINK]", "[/THINK]", "<pad>"]
    tekken["special_tokens"] = [
        {"rank": i, "token_str": s, "is_control": s != "[THINK]"} for i, s in enumerate(names)
    ]
    tekken["config"].update(default_num_special_tokens=100, default_vocab_size=5100)
    tekken["config"]["version"] = "v13"
    tekken["vocab"] = tekken["vocab"][:5000]
    path = folder / "tekken_v13_listing.json"
    path.write_text(json.dumps(tekken), encoding="utf-8")
    return path


def main() -> int:
    data = Path(mistral_common.__file__).parent / "data"
    files = sorted(data.glob("tekken*.json")) + [Path(p) for p in sys.argv[1:]]
    print(f"mistral-common {mistral_common.__version__}, {len(TEXTS)} texts")
    with tempfile.TemporaryDirectory() as folder:
        files.append(listing_special_tokens(files[0], Path(folder)))
        return 0 if all([verify(path) for path in files]) else 1


if __name__ == "__main__":
    sys.exit(main())
