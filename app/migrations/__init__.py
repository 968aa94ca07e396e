"""The store's Alembic migrations (`tokvis db upgrade` runs them; `app.db.migrate`)."""
