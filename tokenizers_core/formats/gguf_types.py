"""The token types llama.cpp gives a GGUF's tokens by their text, whatever the file says
(`llama_vocab::impl::load`): the end-of-generation and fill-in-the-middle texts become CONTROL,
gpt-oss's channel tokens USER_DEFINED. Read by the GGUF loader (`gguf_tokenizer`) and told by
the writer (`gguf_writer.control_looking`)."""

from __future__ import annotations

from typing import Any

from ..models.sentencepiece_common import CONTROL, NORMAL, USER_DEFINED

_KEY = "tokenizer.ggml."

# `llama_vocab::impl::load` adds the CONTROL flag to every token with one of these texts (its
# end-of-generation list), whatever the file types it: "control-looking token ... was not
# control-type; this is probably a bug in the model. its type will be overridden".
EOG_TEXTS = frozenset(
    "<|eot_id|> <|im_end|> <|end|> <|return|> <|call|> <|flush|> <|calls|> <end_of_turn> "
    "<|endoftext|> </s> <|eom_id|> <EOT> _<EOT> [EOT] [EOS] <|end_of_text|> "
    "<end_of_utterance> <eos> <turn|> <|tool_response> <｜end▁of▁sentence｜> [e~[".split()
)
# ... and to the fill-in-the-middle tokens it finds by text when the file names no id for them
# (under any of the keys, the second ones deprecated)
FIM_TEXTS = {
    "fim_pre_token_id prefix_token_id": (
        "<|fim_prefix|> <fim-prefix> <fim_prefix> <｜fim▁begin｜> <PRE> ▁<PRE> "
        "<|code_prefix|> <|prefix|>"
    ),
    "fim_suf_token_id suffix_token_id": (
        "<|fim_suffix|> <fim-suffix> <fim_suffix> <｜fim▁hole｜> <SUF> ▁<SUF> "
        "<|code_suffix|> <|suffix|>"
    ),
    "fim_mid_token_id middle_token_id": (
        "<|fim_middle|> <fim-middle> <fim_middle> <｜fim▁end｜> <MID> ▁<MID> "
        "<|code_middle|> <|middle|>"
    ),
    "fim_pad_token_id": "<|fim_pad|> <fim-pad> <fim_pad> <PAD> [PAD]",
    "fim_rep_token_id": "<|fim_repo|> <|repo_name|> <fim-repo> <REPO> <reponame>",
    "fim_sep_token_id": "<|file_sep|>",
}
# ... and it makes these gpt-oss tokens USER_DEFINED, so they are matched with parsing off too
ALWAYS_MATCHED = frozenset(["<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"])


def llama_cpp_types(tokens: list[str], types: list[int], kv: dict[str, Any]) -> list[int]:
    """The file's token types as llama.cpp reads them: a NORMAL or USER_DEFINED token whose
    text llama.cpp takes for a control token (`EOG_TEXTS`, and `FIM_TEXTS` when the file
    names no such id) becomes CONTROL, so that with special tokens not parsed it is text, as
    `tokenizer_st_partition` skips control tokens then (Phi-3's GGUF types `</s>`
    USER_DEFINED: llama.cpp reads a typed `</s>` as text). `ALWAYS_MATCHED` become
    USER_DEFINED. (For the FIM kinds llama.cpp flags the first text it finds in a hash map;
    we flag every one of them, which differs only for a file holding two such texts.)

    >>> llama_cpp_types(["a", "</s>", "<|mine|>", "<|fim_pad|>"], [1, 4, 4, 4], {})
    [1, 3, 4, 3]
    """
    control = set(EOG_TEXTS)
    for keys, texts in FIM_TEXTS.items():
        if not any(_KEY + key in kv for key in keys.split()):
            control.update(texts.split())
    out = list(types)
    for i, token in enumerate(tokens):
        if token in ALWAYS_MATCHED:
            out[i] = USER_DEFINED
        elif token in control and out[i] in (NORMAL, USER_DEFINED):
            out[i] = CONTROL
    return out
