"""Alembic's entry point: run the migrations on the connection `app.db.migrate` hands over.

On PostgreSQL a transaction-scoped advisory lock makes two `tokvis db upgrade` at once take
turns (the second finds nothing to do); SQLite is locked by `app.db.migrate` with a file lock.
"""

from alembic import context

from app.db.schema import metadata

MIGRATION_LOCK = 0x746F6B76  # "tokv": the advisory lock's key, any constant

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
    context.run_migrations()
