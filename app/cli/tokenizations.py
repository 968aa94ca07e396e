"""`tokvis tokenizations NAME|FILE TEXT [--shortest K] [--samples N] [--seed S] [--json]`: the
space of token sequences that decode to a text (`tokenizers_core.tokenizations`): how many
there are, the canonical one, the shortest and uniform samples. `--check IDS` says whether ids
are canonical and where they first break; `--heal` heals TEXT as a prompt's end."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tokenizers_core.tokenizations import MAX_K, MAX_SAMPLES, heal, is_canonical, tokenizations

from ..services.specials import parse_ids
from .inputs import load_tokenizer, tokenizer_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tokenizations", help="every token sequence that decodes to a text: count, samples"
    )
    p.add_argument("source", metavar="NAME|FILE", help="a bundled tokeniser or a tokenizer file")
    p.add_argument("text", help="the text (at most 2,000 bytes)")
    p.add_argument(
        "--shortest", type=int, default=5, metavar="K", help=f"the K shortest (0-{MAX_K})"
    )
    p.add_argument(
        "--samples", type=int, default=5, metavar="N", help=f"N uniform samples (0-{MAX_SAMPLES})"
    )
    p.add_argument("--seed", type=int, default=None, help="the samples' seed")
    p.add_argument(
        "--check", metavar="IDS", help='say whether IDS ("1 2 3" or a JSON list) are canonical'
    )
    p.add_argument(
        "--heal", action="store_true", help="heal TEXT as the end of a prompt (token healing)"
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    tokenizer_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    tok = load_tokenizer(args.source, args)
    if args.check is not None:
        return _check(tok, parse_ids(args.check), args.json)
    if args.heal:
        healed = heal(tok, args.text)
        if args.json:
            print(json.dumps(healed.to_dict(), ensure_ascii=False))
            return 0
        print(f"back off {healed.removed!r} (id {healed.removed_id}); prompt ids now:")
        print("  " + " ".join(map(str, healed.healed_ids)))
        print(f"{healed.n_allowed:,} tokens may come next, among them:")
        print("  " + "  ".join(repr(text) for _id, text in healed.allowed[:20]))
        return 0
    space = tokenizations(tok, args.text)
    out: dict[str, Any] = {
        "count": str(space.count()),
        "log10": space.log10(),
        "canonical": space.canonical(),
        "shortest": space.shortest(args.shortest) if args.shortest else [],
        "samples": space.sample(args.samples, seed=args.seed) if args.samples else [],
    }
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
        return 0
    unit = space.lattice.unit
    print(f"{out['count']} token sequences decode to this text ({space.lattice.n} {unit}s)")
    print(f"canonical: {_spelled(tok, out['canonical'])}")
    for title in ("shortest", "samples"):
        if out[title]:
            print(f"{title}:")
            for ids in out[title]:
                print(f"  {len(ids):>4}  {_spelled(tok, ids)}")
    return 0


def _check(tok: Any, ids: list[int], as_json: bool) -> int:
    found = is_canonical(tok, ids)
    if as_json:
        print(json.dumps({"canonical": found is None, **(found.to_dict() if found else {})}))
    elif found is None:
        print("canonical: encode of their text gives these ids back")
    else:
        print(f"not canonical: first break at token {found.index} ({found.reason})")
        print(f"  these ids:    {_spelled(tok, list(found.ids))}")
        print(f"  encode gives: {_spelled(tok, list(found.canonical_ids))}")
    return 0 if found is None else 1


def _spelled(tok: Any, ids: list[int]) -> str:
    return " ".join(f"{tok.id_to_token(i)!s}" for i in ids)
