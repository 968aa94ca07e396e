"""A training on a corpus of shards on the embedded queue (SQLite, the server's own children):
the shards uploaded in one request, a job per shard, the last shard queueing the training from
the counts' sum; the merges are those of training on the shards' text joined. Server-side
paths are read only inside TOKVIS_CORPUS_DIRS. (The shared deployment, two workers and one
killed: tests/app/test_distributed_counting.py.)"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

import tokenizers_core as tc
from app.config import Settings
from app.jobs import counting
from app.main import create_app
from tests.polling import wait_until
from tokenizers_core.corpora import load_corpus

SHARDS = 4


def botchan_lines() -> list[str]:
    return load_corpus("botchan").lstrip("\ufeff").splitlines()  # an upload drops a BOM


def shard_texts(lines: list[str], shards: int = SHARDS) -> list[str]:
    """`lines` cut into `shards` texts, each ending with a newline (joined: the whole text)."""
    size = -(-len(lines) // shards)
    return ["\n".join(lines[i : i + size]) + "\n" for i in range(0, len(lines), size)]


@pytest.fixture
def client(tmp_path):
    settings = Settings(
        db_path=tmp_path / "shards.sqlite3",
        max_text_chars=20_000,
        max_corpus_bytes=2_000_000,
        max_upload_bytes=2_000_000,
        regex_timeout=0.5,
        job_workers=1,  # one worker: no job may wait on another while it holds it
        job_queue=8,
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as c:
        yield c


def upload(client: TestClient, texts: list[str]) -> dict:
    files = [("files", (f"part-{n}.txt", t.encode(), "text/plain")) for n, t in enumerate(texts)]
    r = client.post("/api/corpora/shards", files=files)
    assert r.status_code == 201, r.text
    return r.json()


def finished(client: TestClient, training_id: str, timeout: float = 120) -> dict:
    def final() -> dict:
        found = client.get(f"/api/train/sharded/{training_id}").json()
        return found if found["status"] in ("done", "error") else {}

    return wait_until(final, timeout, 0.1)


def test_four_shards_on_one_worker_train_as_the_whole_text(client):
    texts = shard_texts(botchan_lines()[:1200])
    corpus = upload(client, texts)
    assert [s["name"] for s in corpus["shards"]] == [f"part-{n}.txt" for n in range(SHARDS)]
    r = client.post(
        "/api/train/sharded",
        json={"algorithm": "byte_bpe", "corpus": corpus["corpus"], "vocab_size": 400},
    )
    assert r.status_code == 202, r.text
    started = r.json()
    assert [s["name"] for s in started["shards"]] == [f"part-{n}.txt" for n in range(SHARDS)]
    done = finished(client, started["id"])
    assert done["status"] == "done" and done["reduced"] == "as the shards finished", done
    whole = tc.train("byte_bpe", "".join(texts).splitlines(), 400)
    assert [tuple(m) for m in done["merges"]] == whole.model.merges
    counted = [tc.count(t.splitlines(), "byte_bpe").total for t in texts]
    assert [s["pre_tokens"] for s in done["shards"]] == counted
    assert all(s["state"] == "done" for s in done["shards"])
    # the training's id is a tokenizer handle, and its page lists every shard
    enc = client.post("/api/encode", json={"tokenizer": done["id"], "text": "the master"})
    assert enc.status_code == 200 and enc.json()["ids"] == whole.encode("the master").ids
    page = client.get(f"/train/sharded/{done['id']}")
    assert page.status_code == 200 and 'data-status="done"' in page.text
    assert all(f'data-shard="part-{n}.txt" data-state="done"' in page.text for n in range(4))


def test_a_shard_whose_worker_died_is_counted_again(client):
    """An interrupted shard job (its process gone) is queued again by the dispatcher, alone."""
    texts = shard_texts(botchan_lines()[:400], 2)
    corpus = upload(client, texts)
    body = {"algorithm": "bpe", "corpus": corpus["corpus"], "vocab_size": 300}
    first = finished(client, client.post("/api/train/sharded", json=body).json()["id"])
    store = client.app.state.app_state.jobs.store
    spec = client.app.state.app_state.store.get_spec(first["id"])
    lost = spec["shards"][1]["job"]
    store.delete(spec["train_job"])
    with store._connect() as conn:  # as a worker killed mid-shard leaves it, once marked
        from sqlalchemy import update

        from app.db.schema import jobs

        conn.execute(update(jobs).where(jobs.c.id == lost).values(status="interrupted"))
    kept = store.get(spec["shards"][0]["job"]).finished
    again = wait_until(lambda: (j := store.get(lost)) and j.status == "done" and j, 60, 0.1)
    assert again.spec["attempt"] == 2
    assert store.get(spec["shards"][0]["job"]).finished == kept  # the other was not
    done = finished(client, first["id"])  # and the last shard queued the training again
    assert done["status"] == "done" and done["merges"] == first["merges"]
    assert done["reduced"] == "at the end"  # its running sum went with the row


def test_only_word_count_trainers_train_on_shards(client):
    corpus = upload(client, ["a b c\n", "d e f\n"])
    r = client.post(
        "/api/train/sharded",
        json={"algorithm": "unigram", "corpus": corpus["corpus"], "vocab_size": 50},
    )
    assert r.status_code == 422 and "word counts" in r.json()["detail"]
    r = client.post(
        "/api/train/sharded", json={"algorithm": "bpe", "corpus": "shards-nope", "vocab_size": 50}
    )
    assert r.status_code == 404
    assert client.get("/api/train/sharded/sharded-bpe-1-nope").status_code == 404
    assert client.get("/train/sharded/sharded-bpe-1-nope").status_code == 404


def test_server_paths_only_inside_the_allowed_folders(client, tmp_path, monkeypatch):
    allowed, elsewhere = tmp_path / "corpora", tmp_path / "private"
    allowed.mkdir()
    elsewhere.mkdir()
    (elsewhere / "secret.txt").write_text("not yours\n")
    (allowed / "link.txt").symlink_to(elsewhere / "secret.txt")
    texts = shard_texts(botchan_lines()[:300], 2)
    for n, text in enumerate(texts):
        (allowed / f"web-{n}.txt").write_text(text)
    monkeypatch.delenv("TOKVIS_CORPUS_DIRS", raising=False)
    r = client.post("/api/corpora/shards/paths", json={"paths": [str(allowed / "web-0.txt")]})
    assert r.status_code == 403 and "TOKVIS_CORPUS_DIRS" in r.json()["detail"]
    monkeypatch.setenv("TOKVIS_CORPUS_DIRS", str(allowed))
    for refused in (elsewhere / "secret.txt", allowed / "link.txt", allowed / ".." / "private"):
        r = client.post("/api/corpora/shards/paths", json={"paths": [str(refused)]})
        assert r.status_code == 403, (refused, r.text)
    r = client.post("/api/corpora/shards/paths", json={"paths": [str(allowed / "none.txt")]})
    assert r.status_code == 404
    paths = [str(allowed / f"web-{n}.txt") for n in range(2)]
    corpus = client.post("/api/corpora/shards/paths", json={"paths": paths}).json()
    body = {"algorithm": "wordpiece", "corpus": corpus["corpus"], "vocab_size": 300}
    done = finished(client, client.post("/api/train/sharded", json=body).json()["id"])
    assert done["status"] == "done", done
    whole = tc.train("wordpiece", "".join(texts).splitlines(), 300)
    assert [tuple(m) for m in done["merges"]] == whole.model.merges


def test_the_shard_job_ids_follow_from_the_training():
    tid, spec = counting.training_spec("bpe", "shards-x", [{"name": "a"}, {"name": "b"}], 300, {})
    again, same = counting.training_spec("bpe", "shards-x", [{"name": "a"}, {"name": "b"}], 300, {})
    assert (tid, spec) == (again, same)
    assert len({s["job"] for s in spec["shards"]}) == 2


def test_the_sum_is_made_as_shards_finish_each_shard_once(tmp_path):
    """The final job's row holds the running sum: shards add in any order, a shard counted
    again (its worker killed after adding) is not added twice, and the last one in queues
    the job; the sum is the counts of the shards' text together."""
    from app.jobs import summing
    from app.jobs.store import JobStore

    jobs = JobStore(tmp_path / "sum.sqlite3")
    texts = shard_texts(botchan_lines()[:300], 3)
    parts = [tc.count(t.splitlines(), "bpe") for t in texts]
    summing.open_sum(jobs, "counts_train-x", "counts_train", {"job": "counts_train-x"}, 3)
    for index in (2, 0, 2):
        assert summing.add(jobs, "counts_train-x", index, parts[index], None)
        assert jobs.get("counts_train-x").status == summing.WAITING
    assert summing.whole_sum(jobs, "counts_train-x", 3) is None
    assert jobs.get("counts_train-x").results == {"summed": [0, 2]}
    assert summing.add(jobs, "counts_train-x", 1, parts[1], None)
    assert jobs.get("counts_train-x").status == "queued"
    whole = tc.count("".join(texts).splitlines(), "bpe")
    assert summing.whole_sum(jobs, "counts_train-x", 3) == whole
    assert not summing.add(jobs, "counts_train-x", 1, parts[1], None)  # no longer waiting
