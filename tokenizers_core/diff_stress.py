"""A generated stress set for diffing tokenizers: the texts where converted tokenizers most
often part from their originals. Deterministic (no randomness): the same list every run.

What it covers, one family per helper: Unicode of many scripts, combining marks (composed and
decomposed, so NFC/NFKC normalisers show), emoji (ZWJ sequences, flags, skin tones), numbers
of every length from 1 to 12 digits (number splitting: `\\p{N}{1,3}`), code, whitespace runs
(spaces, tabs, newlines, CRLF, non-breaking and ideographic spaces), contractions (the
`'s|'t|'re` alternatives and their capitals), and strings that look like special tokens.

>>> texts = stress_texts()
>>> len(texts) == len(set(texts)) and texts == stress_texts()
True
>>> "1234567" in texts and "a\\r\\nb" in texts
True
"""

from __future__ import annotations

SCRIPTS = (
    "The quick brown fox jumps over the lazy dog.",
    "Ünïcödé naïve café déjà vu, Straße, Œuvre",
    "Съешь же ещё этих мягких французских булок",
    "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία",
    "שלום עולם, מה שלומך?",
    "مرحبا بالعالم، كيف حالك؟",
    "नमस्ते दुनिया, आप कैसे हैं?",
    "வணக்கம் உலகம்",
    "สวัสดีชาวโลก ภาษาไทยไม่มีช่องว่าง",
    "こんにちは世界。カタカナとひらがな",
    "你好，世界！中文没有空格。",
    "안녕하세요 세계",
    "Tiếng Việt có dấu: Nguyễn",
    "ሰላም ልዑል",
    "Բարեւ աշխարհ",
    "გამარჯობა მსოფლიო",
)
COMBINING = (
    "e\u0301 vs \u00e9",
    "A\u030a and \u00c5 and \u212b",
    "n\u0303o\u0308",
    "\u1e9b\u0323",
    "ﬁne ﬂow ﬀ",
    "①②③ ㎏ ½",
    "Ｆｕｌｌｗｉｄｔｈ １２３",
)
EMOJI = ("👋 hello", "👨‍👩‍👧‍👦 family", "🇫🇷🇯🇵 flags", "👍🏽 thumbs", "🏳️‍🌈", "❤️‍🔥", "a😀b😀c")
CODE = (
    "def f(x):\n    return x ** 2  # square",
    "for (int i = 0; i < n; ++i) { sum += a[i]; }",
    '<div class="a">&amp;</div>',
    "SELECT * FROM t WHERE id = 42;",
    "x=1;y=2;z=x+y",
    "https://example.com/path?q=1&r=two#frag",
    '{"key": [1, 2.5, -3e10, null]}',
)
WHITESPACE = (
    "a  b",
    "a   b",
    "a\tb",
    "a\t\tb",
    "a\nb",
    "a\n\nb",
    "a\r\nb",
    "a\rb",
    "  leading",
    "trailing  ",
    " ",
    "\n",
    "a \u00a0b",
    "a\u3000b",
    "a\u2009b",
    "line one\r\nline two\r\n",
    "    indented\n\tindented",
)
CONTRACTIONS = (
    "don't can't I'm we're they've she'll he'd it's",
    "DON'T CAN'T I'M WE'RE THEY'VE SHE'LL HE'D IT'S",
    "rock 'n' roll",
    "’tis ‘quoted’",
)
SPECIAL_LOOKALIKES = (
    "<|endoftext|>",
    "a<|endoftext|>b",
    "<|begin_of_text|>Hello",
    "<s> </s> <unk> <pad>",
    "[CLS] [SEP] [MASK] [UNK]",
    "<|im_start|>user",
    "< |endoftext| >",
    "<|fim_prefix|>x<|fim_suffix|>",
)


def numbers() -> list[str]:
    """Numbers of 1 to 12 digits, alone, grouped and in text.

    >>> numbers()[:3]
    ['1', '12', '123']
    """
    digits = "123456789012"
    plain = [digits[:n] for n in range(1, len(digits) + 1)]
    return plain + [
        "1,234,567",
        "3.14159",
        "-42",
        "1e-9",
        "2026-11-24",
        "12:30:45",
        "v1.2.3",
        "in 1999 and 2024",
        "$1,000.00",
        "0x1F 0b1010",
    ]


def stress_texts() -> list[str]:
    """The stress set (about 100 texts), in a fixed order, without repeats."""
    texts = [
        *SCRIPTS,
        *COMBINING,
        *EMOJI,
        *numbers(),
        *CODE,
        *WHITESPACE,
        *CONTRACTIONS,
        *SPECIAL_LOOKALIKES,
    ]
    return list(dict.fromkeys(texts))
