"""The app's state: what every route and service shares, built once in `create_app`.

Routers take it through `deps.StateDep` (as the full-stack FastAPI template's `SessionDep`);
services and views take it (or the parts they need) instead of the request, so that they can be
called, and tested, without one. `app.state` reads and writes the same attributes
(`app.state.store is state.store`), for the middleware, the lifespan and the tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .config import Settings
from .jobs import Engine, JobQueue
from .jobs.distributed import DistributedQueue
from .lru import LRU
from .rate import CLASS_ANSWERS_PER_MINUTE, SlidingWindow
from .sandbox import Sandbox
from .services.tokenizations_work import SpacePool
from .store import CorpusStore
from .trained import TrainedTokenizers
from .uploads import UploadedTokenizers


@dataclass
class AppState:
    """The settings and the long-lived objects made from them. (The lifespan adds `warm_up`,
    the first visits' caches being made, when `settings.warm_up` asks for it.)"""

    settings: Settings
    store: CorpusStore  # the corpora, uploads and results, in SQLite or PostgreSQL
    jobs: JobQueue  # the trainings, sweeps and audits that take longer than a request
    trained: TrainedTokenizers  # the tokenisers trained by handle (POST /api/train)
    sandbox: Sandbox  # where untrusted work runs: a chat template, a file's parse, a regex
    tokenizations: SpacePool  # where /api/tokenizations' paths are worked out
    uploads: UploadedTokenizers  # the uploaded tokenizer files, parsed in the sandbox
    page_paths: frozenset[str] = field(default_factory=frozenset)  # every route's path
    # the answers to a class one client may send a minute (app.services.classes), counted in
    # this process
    class_answers: SlidingWindow = field(
        default_factory=lambda: SlidingWindow(CLASS_ANSWERS_PER_MINUTE, 60.0)
    )
    # the visualiser's last encodings, (tokenizer, encoding) by (text, switches): a long text's
    # count and then its tokens (POST / and POST /tokens), a chip's popover and the copy buttons
    # read one encode of the text (app.services.visualiser.encoded)
    encodings: LRU[tuple[Any, ...], tuple[Any, Any]] = field(default_factory=lambda: LRU(4))
    # the newest of them by (tokenizer, switches), (tokenizer, text, encoding): the next
    # keystroke's long text is re-encoded from it where the edit was (tokenizers_core.incremental)
    last_encodings: LRU[tuple[Any, ...], tuple[Any, str, Any]] = field(
        default_factory=lambda: LRU(4)
    )

    @classmethod
    def build(
        cls, settings: Settings, guard: Callable[[Any], str | None] = lambda request: None
    ) -> AppState:
        """The store, queue, pools and caches `settings` describe; `guard` is the queue's check
        of who may ask for queued work (`security.queued_work_refusal`)."""
        store = CorpusStore(settings.store_url, max_bytes=settings.max_store_mb * 10**6)
        # the embedded queue runs jobs in this server's own processes; with PostgreSQL, servers
        # only queue and `tokvis worker` processes run them (app/jobs/distributed.py)
        queue_class = DistributedQueue if settings.shared else Engine
        jobs = queue_class(
            settings.store_url,
            workers=settings.job_workers,
            queue=settings.job_queue,
            cpu_seconds=settings.job_cpu_seconds,
            memory_mb=settings.job_memory_mb,
            stale=settings.job_stale_seconds,
            guard=guard,
        )
        sandbox = Sandbox(
            workers=settings.sandbox_workers,
            cpu_seconds=settings.sandbox_cpu_seconds,
            memory_mb=settings.sandbox_memory_mb,
            parse_seconds=settings.sandbox_parse_seconds,
            parse_memory_mb=settings.sandbox_parse_memory_mb,
        )
        return cls(
            settings=settings,
            store=store,
            jobs=jobs,
            trained=TrainedTokenizers(store, engine=jobs),
            sandbox=sandbox,
            tokenizations=SpacePool(workers=settings.sandbox_workers),
            uploads=UploadedTokenizers(
                store,
                max_bytes=settings.tokenizer_cache_mb * 10**6,
                parser=sandbox.parse,
                normalizer_runner=sandbox.normalizer_runner,
            ),
        )
