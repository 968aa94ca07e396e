"""The store's tables, in SQLAlchemy Core: one schema for SQLite and PostgreSQL.

What each table holds:
- `corpora`: texts by the sha256 of their UTF-8 bytes;
- `trained`: the specs behind trained-tokeniser handles;
- `tokenizer_files` and `tokenizers`: uploaded files by sha256, and the tokenisers loaded from
  them (a file may back several: one per set of load options);
- `jobs`: background jobs, their progress and results (`app.jobs.store`);
- `limits`: settings every process sharing the store must agree on (the size limit), and the
  rows writers lock to take turns (`app.db.engine.take_turn`);
- `classes` and `class_answers`: a teacher's class (its reference training and checkpoints, the
  teacher key's hash) and every answer its students gave (`app.services.classes`).

The names and types are those the SQLite store had before migrations existed, so the first
migration (`app/migrations/versions/0001_store.py`) adopts such a file as it is.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Table,
    Text,
)

metadata = MetaData()

corpora = Table(
    "corpora",
    metadata,
    Column("sha256", Text, primary_key=True),
    Column("text", Text, nullable=False),
    Column("bytes", BigInteger, nullable=False),
    Column("name", Text, nullable=False, server_default=""),
    Column("created", Double, nullable=False),
)

trained = Table(
    "trained",
    metadata,
    Column("handle", Text, primary_key=True),
    Column("spec", Text, nullable=False),
    Column("created", Double, nullable=False),
)

tokenizer_files = Table(
    "tokenizer_files",
    metadata,
    Column("sha256", Text, primary_key=True),  # of the bytes as uploaded, after gunzip
    Column("data", LargeBinary, nullable=False),
    Column("bytes", BigInteger, nullable=False),
    Column("created", Double, nullable=False),
)

tokenizers = Table(
    "tokenizers",
    metadata,
    Column("handle", Text, primary_key=True),  # upload-<sha256[:16]>[-<options digest>]
    Column("sha256", Text, ForeignKey("tokenizer_files.sha256"), nullable=False),
    Column("name", Text, nullable=False, server_default=""),
    Column("format", Text, nullable=False),
    Column("options", Text, nullable=False),  # JSON: the load options
    Column("algorithm", Text, nullable=False),
    Column("vocab_size", Integer, nullable=False),
    Column("family", Text, nullable=False),  # bpe, wordpiece, unigram or other
    Column("created", Double, nullable=False),
)

limits = Table(
    "limits",
    metadata,
    Column("name", Text, primary_key=True),
    Column("value", BigInteger, nullable=False),
)

jobs = Table(
    "jobs",
    metadata,
    Column("id", Text, primary_key=True),
    Column("kind", Text, nullable=False),
    Column("spec", Text, nullable=False),
    Column("status", Text, nullable=False),  # queued, running, done, error, cancelled, interrupted
    Column("done", Integer, nullable=False, server_default="0"),
    Column("total", Integer, nullable=False, server_default="0"),
    Column("current", Text, nullable=False, server_default=""),
    Column("results", Text, nullable=False, server_default="[]"),
    Column("blob", LargeBinary),  # a pickled value, signed (`app.signing`)
    Column("error", Text),
    Column("error_kind", Text),
    Column("owner", Text),  # host:pid of the process running it
    Column("pid", Integer),  # its training child
    Column("cancel", Integer, nullable=False, server_default="0"),
    Column("created", Double, nullable=False),
    Column("started", Double),
    Column("finished", Double),
    Column("heartbeat", Double),
    Column("seen", Double),  # when somebody last looked at it
    Column("abandon", Double),  # cancelled once nobody looked for this long
    Column("secret", Text),  # its creator's key (never shown)
    Index("jobs_status", "status", "created"),
)

classes = Table(
    "classes",
    metadata,
    Column("code", Text, primary_key=True),  # the student link's /class/<code>
    Column("title", Text, nullable=False),
    Column("algorithm", Text, nullable=False),  # bpe, wordpiece or unigram
    Column("corpus", Text, nullable=False),  # a bundled corpus's name or a stored sha256
    Column("corpus_sha256", Text, nullable=False),  # of the text trained on
    Column("corpus_name", Text, nullable=False, server_default=""),
    Column("vocab_size", Integer, nullable=False),
    Column("checkpoints", Text, nullable=False),  # JSON: the steps asked, 1-based, ascending
    Column("options", Text, nullable=False, server_default="{}"),  # JSON: unigram's word
    Column("teacher_key", Text, nullable=False),  # the sha256 of the key (never the key)
    Column("created", Double, nullable=False),
)

class_answers = Table(
    "class_answers",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("class_code", Text, ForeignKey("classes.code"), nullable=False),
    Column("student", Text, nullable=False),
    Column("checkpoint", Integer, nullable=False),
    Column("answer", Text, nullable=False),  # JSON: what the student gave
    Column("correct", Boolean, nullable=False),
    Column("created", Double, nullable=False),
    Index("class_answers_by_class", "class_code", "student", "checkpoint", "created"),
)
