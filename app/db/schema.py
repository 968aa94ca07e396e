"""The store's tables, in SQLAlchemy Core: one schema for SQLite and PostgreSQL.

What each table holds:
- `corpora`: texts by the sha256 of their UTF-8 bytes;
- `trained`: the specs behind trained-tokeniser handles;
- `tokenizer_files` and `tokenizers`: uploaded files by sha256, and the tokenisers loaded from
  them (a file may back several: one per set of load options);
- `jobs`: background jobs, their progress and results (`app.jobs.store`);
- `limits`: settings every process sharing the store must agree on (the size limit), and the
  rows writers lock to take turns (`app.db.engine.take_turn`).

The names and types are those the SQLite store had before migrations existed, so the first
migration (`app/migrations/versions/0001_store.py`) adopts such a file as it is.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
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
