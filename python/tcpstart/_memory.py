"""Giving the memory that the process has freed back to the system."""

from __future__ import annotations

import ctypes
from typing import Callable, Optional

_trim: Optional[Callable[[int], int]] = None
_looked = False


def give_back() -> None:
    """Returns the free pages of glibc's heaps to the system (malloc_trim); nothing where the C
    library is not glibc.

    glibc keeps freed memory in the heap it came from, one heap per thread that allocated: a
    campaign's worker threads make and drop many summaries, texts and packs, and the pages they
    leave free grow with the number of runs (about 6 MB between 1,000 and 100,000 runs) though
    none of it is in use. A campaign calls this once in a part of its runs (about 1,000), so
    that its peak does not carry them.
    """
    global _trim, _looked
    if not _looked:
        _looked = True
        try:
            _trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
        except OSError:
            _trim = None
    if _trim is not None:
        _trim(0)
