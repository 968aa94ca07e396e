"""`python -m app.cli ...`: the `tokvis` command."""

from . import main

raise SystemExit(main())
