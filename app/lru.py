"""The one cache class: a small thread-safe LRU, bounded by entries and, where asked, by bytes.

Every in-memory cache of the app is one of these: finished runs of the step views
(`jobs/cache.RunCache`), trained tokenisers (`trained.py`), vocabulary frequencies (`vocab.py`),
vocabulary diffs and splits (`services/vocab_diff.py`), numbers audits
(`services/audit_numbers.py`), and uploaded normalisers in the sandbox and its children
(`sandbox/`). What differs between them is only what they hold and their bounds.

>>> cache = LRU(2)
>>> cache.put("a", 1), cache.put("b", 2), cache.get("a")
(1, 2, 1)
>>> cache.put("c", 3)   # "b" was used least recently: it goes
3
>>> sorted(cache.keys())
['a', 'c']
>>> cache.get_or_make("d", lambda: 4), len(cache)
(4, 2)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """At most `size` entries (None: no bound) and, with `max_bytes`, at most that many bytes as
    given to `put`; the least recently used goes first, and the newest always stays."""

    def __init__(self, size: int | None, max_bytes: int | None = None) -> None:
        self.size, self.max_bytes = size, max_bytes
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept for `key` (now the most recently used), or None."""
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def put(self, key: K, value: V, nbytes: int = 0) -> V:
        """Keep `value` for `key`, dropping the least recently used over the bounds."""
        with self._lock:
            self._items[key] = (value, nbytes)
            self._items.move_to_end(key)
            while len(self._items) > 1 and self._over():
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._items.clear()

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value kept for `key`, else `make()` kept. `make` runs outside the lock, so two
        threads may both make a missing value (the second put wins): a cache, not a once-only."""
        value = self.get(key)
        return value if value is not None else self.put(key, make())

    def pop(self, key: K) -> V | None:
        with self._lock:
            item = self._items.pop(key, None)
        return None if item is None else item[0]

    def keys(self) -> list[K]:
        with self._lock:
            return list(self._items)

    def nbytes(self) -> int:
        """The bytes of what it holds, as given to `put`."""
        return sum(n for _v, n in list(self._items.values()))

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def _over(self) -> bool:
        too_many = self.size is not None and len(self._items) > self.size
        return too_many or (self.max_bytes is not None and self.nbytes() > self.max_bytes)
