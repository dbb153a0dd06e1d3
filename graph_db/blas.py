"""BLAS threads while MAGS computes: one by default.

numpy's OpenBLAS starts a thread a core and, after each product, lets them spin waiting for
the next. A recall's products are small (hundreds of candidates, a few queries), so a second
thread gains little, and its spinning takes the core that the engine, the ONNX embedder and
the background writes need: on 2 cores, with recalls' co-firing written meanwhile, recall
p50 / p95 at 100k memories were 51 / 150 ms with two BLAS threads, 40 / 106 ms with one.

The limit holds only while MAGS computes (``threadpoolctl``, as scikit-learn does around
its own loops) and is restored after: the host process keeps its own setting.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from typing import Any


@functools.cache
def _controller() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()  # the BLAS libraries loaded (numpy's), found once


@contextlib.contextmanager
def blas_threads(n: int) -> Iterator[None]:
    """At most ``n`` BLAS threads inside the block (0: as the process has them)."""
    if n <= 0:
        yield
        return
    with _controller().limit(limits=n, user_api="blas"):
        yield
