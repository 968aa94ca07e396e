"""Errors of a deployment that is not set up right; each message says what to do. Kept apart
(no imports) so the command line catches them without loading the database layer."""


class SetupError(RuntimeError):
    """The server or worker cannot start as configured."""


class SchemaOutdated(SetupError):
    """The database holds an older (or a newer) schema than this code reads."""


class MissingSecret(SetupError):
    """A shared store, and no (or too short a) TOKVIS_SECRET_KEY."""


class KeyMismatch(SetupError):
    """TOKVIS_SECRET_KEY is not the key the store's signed results were written with."""
