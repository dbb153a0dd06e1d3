"""BLAS threads while MAGS computes: one by default.

numpy's OpenBLAS starts a thread a core and, after each product, lets them spin waiting for
the next. A recall's products are small (hundreds of candidates, a few queries), so a second
thread gains little, and its spinning takes the core that the engine, the ONNX embedder and
the background writes need: on 2 cores, with recalls' co-firing written meanwhile, recall
p50 / p95 at 100k memories were 51 / 150 ms with two BLAS threads, 34 / 88 ms with one.

The limit holds only while MAGS computes (``threadpoolctl``, as scikit-learn does around
its own loops): the first of overlapping calls (threads) sets it, the last restores the
process's own setting.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np  # noqa: F401  (loaded first: its BLAS is what the controller finds)

_lock = threading.Lock()
_inside = 0  # calls under the limit now
_limiter: Any = None  # threadpoolctl's, while any is


@functools.cache
def _controller() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()  # the BLAS libraries loaded (numpy's), found once


@contextlib.contextmanager
def blas_threads(n: int) -> Iterator[None]:
    """At most ``n`` BLAS threads inside the block (0: as the process has them)."""
    global _inside, _limiter
    if n <= 0:
        yield
        return
    with _lock:
        if _inside == 0:
            _limiter = _controller().limit(limits=n, user_api="blas")
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0:
                _limiter.restore_original_limits()
                _limiter = None
