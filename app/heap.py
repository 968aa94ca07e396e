"""Keep long-lived data out of the garbage collector's way.

Vocabularies and trained models are large object graphs that live as long as the server. Every
full collection of Python's cyclic garbage collector walks them all, which adds tens of
milliseconds to whichever request happens to trigger it. After loading or training something
that will stay, `settle()` collects once and freezes what is left (`gc.freeze`): frozen objects
are skipped by later collections but still freed by reference counting when they are dropped.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()


def settle() -> None:
    """Collect once, then move every surviving object to the permanent generation."""
    with _lock:
        gc.collect()
        gc.freeze()
