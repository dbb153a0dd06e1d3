"""Progress bars for work over a namespace's memories: shown from ``PROGRESS_MIN`` of them
(reading a namespace whole, a full maintenance pass: minutes at 1M), quiet below."""

from __future__ import annotations

from tqdm import tqdm

#: from this many memories, work over them shows a progress bar
PROGRESS_MIN = 50_000


def progress(total: int, desc: str) -> tqdm:
    """A bar of ``total`` memories named ``desc``, disabled under ``PROGRESS_MIN``."""
    return tqdm(total=total, disable=total < PROGRESS_MIN, unit="memory", leave=False, desc=desc)
