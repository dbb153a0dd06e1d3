"""The read index of one namespace saved to a file, so that opening a large namespace reads
what changed since (the change log) instead of the whole namespace.

A file is a cache, never trusted blindly: it names the format, the namespace, the embedding
model and dimension, and the (epoch, version) of the store it reflects. ``load`` gives it
back only when all match what is asked; ``graph_db.read_index`` then takes it only when the
store holds the same epoch at that version or later, and catches up on the versions since as
after another process's writes (or reads the namespace whole when the log no longer reaches
back). A file is written whole to a temporary name and renamed over the old one, so a crash
leaves the old file or the new one, never half of one; any file that cannot be read is
logged, removed and ignored.

The content is a pickle of the index's own classes (numpy columns, the lexicon's arrays, the
HNSW graph as usearch's bytes): it lives in the store's home, which only those who may write
the store itself may write.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
FORMAT = "mags-read-index/1"


def path_for(directory: Path, ns: str) -> Path:
    """The file of ``ns`` (a hash: any namespace name makes a file name)."""
    return directory / f"{hashlib.sha256(ns.encode()).hexdigest()[:32]}.idx"


def save(directory: Path, ns: str, model: str, dim: int, layout: str, space: Any) -> Path:
    """Write ``space`` (a ``read_index._Space``, its lock held by the caller) atomically;
    ``layout``: what names the classes' attributes (``read_index.layout``), so that a file
    of another MAGS's classes is never loaded into these."""
    directory.mkdir(parents=True, exist_ok=True)
    path = path_for(directory, ns)
    header = {"format": FORMAT, "ns": ns, "model": model, "dim": dim, "layout": layout,
              "stamp": space.stamp}  # fmt: skip
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            pickle.dump(header, out, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.dump(space, out, protocol=pickle.HIGHEST_PROTOCOL)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def remove(directory: Path, ns: str) -> None:
    """Delete the file of ``ns`` (the namespace was deleted: nothing of it stays here)."""
    path_for(directory, ns).unlink(missing_ok=True)


def load(directory: Path, ns: str, model: str, dim: int, layout: str) -> Any | None:
    """The space saved for ``ns`` by this model and dimension in this layout, or None (no
    file, another format, layout, model or namespace, or a file that cannot be read: then
    it is removed)."""
    path = path_for(directory, ns)
    try:
        with path.open("rb") as f:
            header = pickle.load(f)
            wanted = {"format": FORMAT, "ns": ns, "model": model, "dim": dim, "layout": layout}
            if {k: header.get(k) for k in wanted} != wanted:
                log.info("read index: %s is not this index's file (%s); ignored", path, header)
                return None
            return pickle.load(f)
    except FileNotFoundError:
        return None
    except Exception as e:  # truncated, corrupted, or of an older layout
        log.warning("read index: %s cannot be read (%r); reading the namespace instead", path, e)
        path.unlink(missing_ok=True)
        return None
