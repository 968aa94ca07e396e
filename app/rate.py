"""A per-client sliding window: at most `limit` events a client in any `seconds` seconds.

    window = SlidingWindow(limit=600, seconds=60.0)
    if not window.allow(client):      # False: this client is past its limit (429)
        ...

It counts in this process's memory: in a shared deployment (several servers on one
PostgreSQL) each server keeps its own window, so a client spread over N servers may send N times
the limit. A window forgets a client whose events all fell out of it.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Callable

# a class's answers one client may send a minute (`app.services.classes`): a class behind one
# school address fits well within it; 1,000 a minute is refused
CLASS_ANSWERS_PER_MINUTE = 600


class SlidingWindow:
    """At most `limit` events a client in any `seconds` seconds (the events themselves are
    kept, one timestamp each, so the count is exact, not a fixed bucket's)."""

    def __init__(
        self, limit: int, seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.seconds = seconds
        self.clock = clock
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def allow(self, client: str) -> bool:
        """Count an event of `client` and say whether it is within the limit (an event refused
        is not counted: a client that stops sending gets its room back as the window moves)."""
        now = self.clock()
        with self._lock:
            events = self._events.setdefault(client, deque())
            while events and events[0] <= now - self.seconds:
                events.popleft()
            if len(events) >= self.limit:
                return False
            events.append(now)
            if len(self._events) > 10_000:  # forget the clients whose window is empty
                for key in [
                    k for k, v in self._events.items() if not v or v[-1] <= now - self.seconds
                ]:
                    del self._events[key]
            return True

    def retry_after(self, client: str) -> int:
        """Whole seconds until `client` may send again (1 at least)."""
        with self._lock:
            events = self._events.get(client)
            if not events or len(events) < self.limit:
                return 1
            return max(1, int(events[0] + self.seconds - self.clock()) + 1)
