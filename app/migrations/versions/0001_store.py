"""The store: corpora, trained specs, uploaded tokenizer files and tokenisers, jobs, limits.

A store made before migrations existed (SQLite, its tables created at start, columns added to
`jobs` as releases went by) is adopted as it is: a table that exists is kept with its rows, a
column it lacks is added. A new database gets every table.

Revision ID: 0001
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TIME = sa.Double


def _tables() -> list[tuple[str, list[sa.Column]]]:
    return [
        ("corpora", [
            sa.Column("sha256", sa.Text, primary_key=True),
            sa.Column("text", sa.Text, nullable=False),
            sa.Column("bytes", sa.BigInteger, nullable=False),
            sa.Column("name", sa.Text, nullable=False, server_default=""),
            sa.Column("created", TIME, nullable=False)]),
        ("trained", [
            sa.Column("handle", sa.Text, primary_key=True),
            sa.Column("spec", sa.Text, nullable=False),
            sa.Column("created", TIME, nullable=False)]),
        ("tokenizer_files", [
            sa.Column("sha256", sa.Text, primary_key=True),
            sa.Column("data", sa.LargeBinary, nullable=False),
            sa.Column("bytes", sa.BigInteger, nullable=False),
            sa.Column("created", TIME, nullable=False)]),
        ("tokenizers", [
            sa.Column("handle", sa.Text, primary_key=True),
            sa.Column("sha256", sa.Text, sa.ForeignKey("tokenizer_files.sha256"),
                      nullable=False),
            sa.Column("name", sa.Text, nullable=False, server_default=""),
            sa.Column("format", sa.Text, nullable=False),
            sa.Column("options", sa.Text, nullable=False),
            sa.Column("algorithm", sa.Text, nullable=False),
            sa.Column("vocab_size", sa.Integer, nullable=False),
            sa.Column("family", sa.Text, nullable=False),
            sa.Column("created", TIME, nullable=False)]),
        ("limits", [
            sa.Column("name", sa.Text, primary_key=True),
            sa.Column("value", sa.BigInteger, nullable=False)]),
        ("jobs", _job_columns()),
    ]


def _job_columns() -> list[sa.Column]:
    return [
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("spec", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("total", sa.Integer, nullable=False, server_default="0"),
        sa.Column("current", sa.Text, nullable=False, server_default=""),
        sa.Column("results", sa.Text, nullable=False, server_default="[]"),
        sa.Column("blob", sa.LargeBinary),
        sa.Column("error", sa.Text),
        sa.Column("error_kind", sa.Text),
        sa.Column("owner", sa.Text),
        sa.Column("pid", sa.Integer),
        sa.Column("cancel", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created", TIME, nullable=False),
        sa.Column("started", TIME),
        sa.Column("finished", TIME),
        sa.Column("heartbeat", TIME),
        sa.Column("seen", TIME),
        sa.Column("abandon", TIME),
        sa.Column("secret", sa.Text),
    ]


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    have = set(inspector.get_table_names())
    for name, columns in _tables():
        if name not in have:
            op.create_table(name, *columns)
            continue
        present = {c["name"] for c in inspector.get_columns(name)}
        for column in columns:                     # a store from an earlier release
            if column.name not in present:
                op.add_column(name, column)
    if "jobs" not in have or "jobs_status" not in {i["name"] for i in
                                                   inspector.get_indexes("jobs")}:
        op.create_index("jobs_status", "jobs", ["status", "created"])


def downgrade() -> None:
    raise NotImplementedError("the first schema has nothing before it: restore a backup")
