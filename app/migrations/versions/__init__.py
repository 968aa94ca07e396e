"""One file per schema version, oldest first."""
