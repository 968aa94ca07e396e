"""A class's checkpoints: the classes teachers make and the answers their students give.

Two tables, on SQLite and PostgreSQL alike (`app/db/schema.py`: `classes`, `class_answers`);
a store that has them already (made by a newer schema's `create_all`) keeps them as they are.

Revision ID: 0003
"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "classes" not in have:
        op.create_table(
            "classes",
            sa.Column("code", sa.Text, primary_key=True),
            sa.Column("title", sa.Text, nullable=False),
            sa.Column("algorithm", sa.Text, nullable=False),
            sa.Column("corpus", sa.Text, nullable=False),
            sa.Column("corpus_sha256", sa.Text, nullable=False),
            sa.Column("corpus_name", sa.Text, nullable=False, server_default=""),
            sa.Column("vocab_size", sa.Integer, nullable=False),
            sa.Column("checkpoints", sa.Text, nullable=False),
            sa.Column("options", sa.Text, nullable=False, server_default="{}"),
            sa.Column("teacher_key", sa.Text, nullable=False),
            sa.Column("created", sa.Double, nullable=False),
        )
    if "class_answers" not in have:
        op.create_table(
            "class_answers",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("class_code", sa.Text, sa.ForeignKey("classes.code"), nullable=False),
            sa.Column("student", sa.Text, nullable=False),
            sa.Column("checkpoint", sa.Integer, nullable=False),
            sa.Column("answer", sa.Text, nullable=False),
            sa.Column("correct", sa.Boolean, nullable=False),
            sa.Column("created", sa.Double, nullable=False),
        )
        op.create_index(
            "class_answers_by_class",
            "class_answers",
            ["class_code", "student", "checkpoint", "created"],
        )


def downgrade() -> None:
    op.drop_table("class_answers")
    op.drop_table("classes")
