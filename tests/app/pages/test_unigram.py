"""/unigram/train and /unigram/lattice: the rounds add up and say why round one repeats the seed."""

from __future__ import annotations

import re


def test_unigram_rounds_add_up_and_say_why_round_one_repeats_the_seed(client):
    html = client.get("/unigram/train", params={"step": 99}).text
    table = html.split('data-testid="rounds"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(
        r"<tr[^>]*>\s*<td>([^<]*)</td>\s*<td class=\"num\">([\d,]+)</td>\s*"
        r"<td class=\"num\" data-col=\"dropped\">([^<]*)(?:<span[^>]*>[^<]*</span>)?"
        r"</td>\s*<td class=\"num\" data-col=\"pruned\">([\d,]+)</td>",
        table,
    )
    num = lambda s: int(s.replace(",", "").strip())  # noqa: E731
    assert len(rows) >= 3 and rows[0][0] == "seed" and rows[-1][0] == "final"
    for (_, before, _, _), (_, after, dropped, pruned) in zip(rows, rows[1:]):
        assert num(before) - num(dropped) - num(pruned) == num(after)
    assert "round 1 shows the seed model's likelihood" in html
