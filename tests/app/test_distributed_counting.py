"""A training on a corpus of shards in the shared deployment, for real: one PostgreSQL, two
uvicorn servers and two `tokvis worker`s (as tests/app/test_distributed.py runs them). Each
shard is counted by whichever worker takes it, the last queues the training from the counts'
sum, and the merges are those of training on the shards' text joined; each shard's state and
pre-tokens show in the JSON while it runs; a worker killed with -9 mid-shard loses only that
shard, which the other worker counts again; server-side paths outside TOKVIS_CORPUS_DIRS are
refused."""

from __future__ import annotations

import json
import os
import signal
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from job_helpers import until
from test_distributed import STALE, Cluster
from test_jobs_server import call

import tokenizers_core as tc
from app.jobs.store import JobStore
from app.store import CorpusStore
from tests.servers import post_shards
from tokenizers_core.corpora import load_corpus

pytestmark = pytest.mark.slow


def botchan() -> str:
    return load_corpus("botchan").lstrip("\ufeff")  # an upload drops the BOM


@pytest.fixture
def corpus_dir(tmp_path):
    folder = tmp_path / "corpora"
    folder.mkdir()
    return folder


@pytest.fixture
def cluster(pg_url, corpus_dir):
    made = Cluster(pg_url, TOKVIS_CORPUS_DIRS=str(corpus_dir), TOKVIS_JOB_QUEUE="16")
    assert made.tokvis("db", "upgrade").returncode == 0
    yield made
    made.close()


def status(base: str, training_id: str) -> dict:
    return call(f"{base}/api/train/sharded/{training_id}")


def finished(base: str, training_id: str, timeout: float = 240) -> dict:
    return until(
        lambda: (s := status(base, training_id))["status"] in ("done", "error") and s, timeout
    )


def test_four_shards_on_two_workers_train_as_the_whole_text(cluster):
    a, b = cluster.server(), cluster.server()
    cluster.worker()
    cluster.worker()
    lines = botchan().splitlines()
    texts = ["\n".join(lines[i : i + 1000]) + "\n" for i in range(0, 4000, 1000)]
    corpus = post_shards(a, texts)
    started = call(
        a + "/api/train/sharded",
        "POST",
        {"algorithm": "byte_bpe", "corpus": corpus["corpus"], "vocab_size": 500},
    )
    assert [s["name"] for s in started["shards"]] == [f"part-{n}.txt" for n in range(4)]
    done = finished(b, started["id"])  # polled through the other server
    assert done["status"] == "done" and done["reduced"] == "as the shards finished", done
    whole = tc.train("byte_bpe", "".join(texts).splitlines(), 500)
    assert [tuple(m) for m in done["merges"]] == whole.model.merges
    counted = [tc.count(t.splitlines(), "byte_bpe").total for t in texts]
    assert [s["pre_tokens"] for s in done["shards"]] == counted
    owners = {JobStore(cluster.url).get(s["job"]).owner for s in _spec(cluster, done)["shards"]}
    assert owners and all(owners)  # each shard was run by a worker
    encoded = call(b + "/api/encode", "POST", {"tokenizer": done["id"], "text": "the master"})
    assert encoded["ids"] == whole.encode("the master").ids
    page = urllib.request.urlopen(f"{a}/train/sharded/{done['id']}", timeout=30).read().decode()
    assert 'data-status="done"' in page and 'data-shard="part-3.txt" data-state="done"' in page


def _spec(cluster: Cluster, found: dict) -> dict:
    """The training's spec, as the servers keep it (its shards' job ids)."""
    spec = CorpusStore(cluster.url).get_spec(found["id"])
    assert spec is not None
    return spec


def test_a_worker_killed_mid_shard_loses_only_that_shard(cluster, corpus_dir):
    """One worker takes the big first shard; once its pre-tokens show in the JSON, a second
    worker starts and the first is killed with -9. The shard is marked interrupted (its
    heartbeat stopped), queued again, counted by the second worker; the shards already
    counted are not counted again, and the merges are those of the whole text."""
    text = botchan()
    big, small = text * 60, text  # some 16 MB: seconds of counting
    paths = []
    for n, shard in enumerate([big, small, small, small]):
        path = corpus_dir / f"web-{n}.txt"
        path.write_text(shard)
        paths.append(str(path))
    a = cluster.server()
    corpus = call(a + "/api/corpora/shards/paths", "POST", {"paths": paths})
    doomed = cluster.worker()
    body = {"algorithm": "bpe", "corpus": corpus["corpus"], "vocab_size": 400}
    started = call(a + "/api/train/sharded", "POST", body)
    mid = until(
        lambda: (
            (s := status(a, started["id"])["shards"][0])["state"] == "running"
            and s["pre_tokens"] > 0
            and s
        ),
        120,
        0.05,
    )
    assert mid, status(a, started["id"])
    cluster.worker()
    os.kill(doomed.pid, signal.SIGKILL)
    jobs, spec = JobStore(cluster.url), _spec(cluster, started)
    lost = spec["shards"][0]["job"]
    assert until(lambda: jobs.get(lost).spec["attempt"] == 2, 4 * STALE + 30)
    done = finished(a, started["id"])
    assert done["status"] == "done", done
    assert done["shards"][0]["attempt"] == 2 and done["shards"][0]["state"] == "done"
    assert done["reduced"] == "as the shards finished"
    assert [s["attempt"] for s in done["shards"][1:]] == [1, 1, 1]  # counted once
    assert 0 < mid["pre_tokens"] < done["shards"][0]["pre_tokens"]  # it was mid-shard
    whole = tc.train("bpe", _lines(paths), 400)
    assert [tuple(m) for m in done["merges"]] == whole.model.merges


def _lines(paths: list[str]):
    for path in paths:
        yield from Path(path).read_text().splitlines()


def test_paths_outside_the_allowed_folders_are_refused(cluster, corpus_dir, tmp_path):
    a = cluster.server()
    (tmp_path / "private.txt").write_text("not a corpus\n")
    (corpus_dir / "link.txt").symlink_to(tmp_path / "private.txt")
    for path in ("/etc/passwd", str(tmp_path / "private.txt"), str(corpus_dir / "link.txt")):
        with pytest.raises(urllib.error.HTTPError) as refused:
            call(a + "/api/corpora/shards/paths", "POST", {"paths": [path]})
        assert refused.value.code == 403
        assert "TOKVIS_CORPUS_DIRS" in json.loads(refused.value.read())["detail"]
