"""The shared job queue: procrastinate's own tables and functions, on PostgreSQL only.

With PostgreSQL, jobs are queued through procrastinate (`app.jobs.distributed`) in the same
transaction as their row in `jobs`; its schema is the one the pinned procrastinate release
ships (`SchemaManager.get_schema()`). SQLite keeps the embedded queue: nothing to do.

Revision ID: 0002
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    if "procrastinate_jobs" in set(sa.inspect(bind).get_table_names()):
        return
    from procrastinate.schema import SchemaManager   # lazy: only PostgreSQL stores need it
    # on psycopg's own connection, with no parameters: the script's `%` are not placeholders
    bind.connection.driver_connection.execute(SchemaManager.get_schema())


def downgrade() -> None:
    raise NotImplementedError("procrastinate's schema is not taken down: restore a backup")
