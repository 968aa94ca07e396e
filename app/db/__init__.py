"""The store's database: its tables (`schema`), connections and the few dialect-specific
statements (`engine`), and its schema versions (`migrate`, with `app/migrations/`).

SQLite by default (one file, the embedded mode `make run` serves), PostgreSQL when shared
(`TOKVIS_DATABASE_URL`): several servers and job workers on one database.
"""

from .engine import connect, database_url, get_engine, is_postgres, shown
from .migrate import SchemaOutdated, ensure_current, upgrade

__all__ = [
    "SchemaOutdated",
    "connect",
    "database_url",
    "ensure_current",
    "get_engine",
    "is_postgres",
    "shown",
    "upgrade",
]
