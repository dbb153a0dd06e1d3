"""Full-text search over one namespace's memories of one label, in process: BM25 (Lucene's
formula, k1 1.2, b 0.75) over the stored ``terms`` (stemmed words, as the engine's
full-text index holds them), with this namespace's own statistics. The engine's index is
global per label: another tenant's turns moved a namespace's term weights (and so its
ranking), and every search was a Bolt round trip.

Kept compact for the read index's budget: term ids, per term its postings (rows, term
counts) and per row its term ids in order (so its ``terms`` read back as stored, which recall
ranks by), in growing ``array`` buffers read by numpy without a copy. Rows are never reused:
a dropped memory's row is masked and its postings stay until dead rows outnumber live
ones, when the lexicon is rebuilt from the rows' own term ids.
"""

from __future__ import annotations

import zlib
from array import array
from collections import Counter
from itertools import pairwise, repeat

import numpy as np

K1, B = 1.2, 0.75
DENSE_ROWS = 1 << 15  # up to this many rows a search sums over all of them (in cache)
# top_k over 16 x k x this many scores or more (and a dense search's sums) first drops those
# under the k-th best of a strided sample of ~k x this many (``_sieve``): partitioning 300k
# BM25 hits at 1M memories took a third of a search (sieved: 6.2 -> 4.0 ms, 100k 0.71 -> 0.44)
SIEVE_SHARE = 32


class Lexicon:
    """BM25 over the terms of one label's memories in one namespace (see the module doc)."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self.names: list[str] = []  # per term id: the term
        self.rows: list[array] = []  # per term id: rows that have it
        self.counts: list[array] = []  # per term id: how often each of those rows has it
        self.df: list[int] = []  # per term id: live rows that have it
        self.ids: list[str | None] = []  # per row: its memory (None: dropped)
        self.words = array("I")  # every row's term ids in order, one row after another
        self.starts = array("Q", [0])  # row r's term ids: words[starts[r] : starts[r + 1]]
        self.length = array("I")  # per row: its number of terms
        self.alive = bytearray()  # per row: 1 while its memory is held
        self.seq = array("q")  # per row: its memory's write order (``order_of``)
        self.at: dict[str, int] = {}  # memory id -> row
        self.total = 0  # terms over the live rows

    def __len__(self) -> int:
        return len(self.at)

    def put(self, mid: str, terms: str | None, seq: int | None = None) -> None:
        """Index ``mid`` with ``terms`` (space-separated), replacing what it had; ``seq``:
        its write order (its stored ``seq``; None: as held, else unknown), which orders
        ties."""
        held = self.at.get(mid)
        order = self.seq[held] if seq is None and held is not None else order_of(seq, mid)
        self.drop(mid)
        words = (terms or "").split()
        if not words:
            return
        row = len(self.ids)
        self.ids.append(mid)
        self.at[mid] = row
        self.length.append(len(words))
        self.alive.append(1)
        self.seq.append(order)
        self.total += len(words)
        for word, n in Counter(words).items():
            tid = self.vocab.get(word)
            if tid is None:
                tid = self.vocab[word] = len(self.df)
                self.names.append(word)
                self.rows.append(array("I"))
                self.counts.append(array("H"))
                self.df.append(0)
            self.rows[tid].append(row)
            self.counts[tid].append(min(n, 65535))
            self.df[tid] += 1
        self.words.extend(self.vocab[word] for word in words)
        self.starts.append(len(self.words))

    def drop(self, mid: str) -> None:
        row = self.at.pop(mid, None)
        if row is None:
            return
        self.ids[row] = None
        self.alive[row] = 0
        self.total -= self.length[row]
        for tid in set(self.words[self.starts[row] : self.starts[row + 1]]):
            self.df[tid] -= 1
        if len(self.ids) > 64 and len(self.at) < len(self.ids) // 2:
            self._compact()

    def terms(self, mid: str) -> str | None:
        """``mid``'s terms as stored (None: not held, or stored without any)."""
        row = self.at.get(mid)
        if row is None:
            return None
        return " ".join(
            map(self.names.__getitem__, self.words[self.starts[row] : self.starts[row + 1]])
        )

    def term_ids_of(self, mids: list[str], with_ids: bool) -> tuple[list[bytes | None], np.ndarray]:
        """Each of ``mids``' terms as term ids (uint32 bytes, when ``with_ids``; None: not
        held, or not asked) and how many it has (0: not held)."""
        found = np.array(list(map(self.at.get, mids, repeat(-1, len(mids)))), np.intp)
        held = found >= 0
        count = np.zeros(len(mids), np.int64)
        count[held] = np.frombuffer(self.length, np.uint32)[found[held]]
        if not with_ids:
            return [None] * len(mids), count
        # every row's term ids in one take, then cut: a recall asks for hundreds
        ends = np.cumsum(count)
        first = np.frombuffer(self.starts, np.uint64)[found].astype(np.intp)
        at = np.repeat(first - (ends - count), count) + np.arange(ends[-1] if len(ends) else 0)
        every = np.frombuffer(self.words, np.uint32)[at].tobytes()
        cut = (np.concatenate([[0], ends]) * 4).tolist()
        out: list[bytes | None] = [every[a:b] for a, b in pairwise(cut)]
        if not held.all():
            for i in np.flatnonzero(~held).tolist():
                out[i] = None
        return out, count

    def search(self, words: list[str], k: int) -> list[tuple[str, float]]:
        """The ``k`` best memories for the query terms ``words``, best first (ties: the
        earlier written first, also for which of them make the ``k``: ``best``).

        Works from the query terms' postings, not over every row: a row's score is the sum of
        its terms' parts added in query order from 0.0, the same floats whichever way the rows
        are found. Few postings for the rows (rare words) are sorted by row; many (a frequent
        word), or few rows, are summed into one array over all rows, then the cheaper."""
        n, live = len(self.ids), len(self.at)
        if k <= 0 or live == 0:
            return []
        tids = [
            t for t in map(self.vocab.get, dict.fromkeys(words)) if t is not None and self.df[t]
        ]
        if not tids:
            return []
        row = np.concatenate([np.frombuffer(self.rows[t], np.uint32) for t in tids], dtype=np.intp)
        tf = np.concatenate([np.frombuffer(self.counts[t], np.uint16) for t in tids], dtype=float)
        idf = np.repeat(
            [np.log1p((live - self.df[t] + 0.5) / (self.df[t] + 0.5)) for t in tids],
            [len(self.rows[t]) for t in tids],
        )
        length = np.frombuffer(self.length, np.uint32)[row]
        score = idf * tf / (tf + K1 * (1 - B + B * length / (self.total / live)))
        alive = np.frombuffer(self.alive, bool)  # dropped rows keep their postings
        if len(tids) > 1 and (n <= DENSE_ROWS or len(row) * 8 > n):
            sums = np.bincount(row, weights=score, minlength=n)  # adds in the order given
            row = _hits(sums, alive, k)
            score = sums[row]
        else:
            if len(tids) > 1:  # each term's rows ascend: a stable sort keeps the query order
                order = np.argsort(row, kind="stable")
                row, score = _sums(row[order], score[order])
            held = alive[row]
            if not held.all():
                row, score = row[held], score[held]
        seq = np.frombuffer(self.seq, np.int64)
        return best(row, score, k, self.ids, seq)  # type: ignore[arg-type]

    def _compact(self) -> None:
        """Drop the dead rows and their postings, numbering the live rows anew."""
        alive = np.frombuffer(self.alive, np.uint8).astype(bool)
        new = (np.cumsum(alive) - 1).astype(np.uint32)
        for tid, rows in enumerate(self.rows):
            old = np.frombuffer(rows, np.uint32)
            keep = alive[old]
            self.rows[tid] = array("I", new[old[keep]].tobytes())
            self.counts[tid] = array(
                "H", np.frombuffer(self.counts[tid], np.uint16)[keep].tobytes()
            )
        kept = np.flatnonzero(alive)
        self.ids = [self.ids[r] for r in kept]
        starts = np.frombuffer(self.starts, np.uint64)
        sizes = (starts[1:] - starts[:-1]).astype(np.intp)
        words = np.frombuffer(self.words, np.uint32)[np.repeat(alive, sizes)]
        self.words = array("I", words.tobytes())
        ends = np.cumsum(sizes[alive], dtype=np.uint64)
        self.starts = array("Q", np.concatenate([[0], ends]).astype(np.uint64).tobytes())
        self.length = array("I", np.frombuffer(self.length, np.uint32)[kept].tobytes())
        self.seq = array("q", np.frombuffer(self.seq, np.int64)[kept].tobytes())
        self.alive = bytearray(b"\x01" * len(kept))
        self.at = {mid: row for row, mid in enumerate(self.ids)}  # type: ignore[misc]


#: past every stored write order (nanoseconds: until 2262): a memory stored without one (an
#: entity, a fact of an older MAGS) is ordered after them, by ``tag_of`` its id
UNORDERED = 2**63 - 2**32


def order_of(seq: int | None, mid: str) -> int:
    """A memory's write order as ties are ordered by: its stored ``seq`` (nanoseconds and a
    counter: ``engram._seq_value``, one a memory), else after all of those, by its id."""
    return UNORDERED + tag_of(mid) if seq is None else int(seq)


def tag_of(mid: str) -> int:
    """A number fixed by ``mid`` alone (crc32), which orders ties of no known write order
    the same way whatever order the rows came in."""
    return zlib.crc32(mid.encode())


def best(
    row: np.ndarray,
    score: np.ndarray,
    k: int,
    ids: list[str],
    seq: np.ndarray,
) -> list[tuple[str, float]]:
    """The ``k`` best of ``row`` (ascending) by ``score`` as (``ids[row]``, score), best
    first; of those tied, also for which make the ``k``, the earlier written first (``seq``
    by row: ``order_of`` their stored write order), then by row. Not by
    row alone: rows are numbered in write order by the process that wrote, in the store's
    order by one that read the namespace back, and a rewrite moves a memory to a new row;
    so a namespace read back ranks as the one written through."""
    row, score = top_k(row, score, k, seq)
    order = np.lexsort((row, seq[row], -score))
    return [(ids[r], s) for r, s in zip(row[order].tolist(), score[order].tolist(), strict=True)]


def top_k(
    row: np.ndarray,
    score: np.ndarray,
    k: int,
    seq: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best of ``row`` (ascending) by ``score``; of those tied at the k-th score,
    the first by ``seq`` (by row: ``best``'s order), else the earliest rows
    (np.argpartition alone picks any of them: a memory written twice would be found or not
    by chance). Also the read index's exact vector scan's rule."""
    if len(row) <= k:
        return row, score
    floor = _sieve(score, k)
    if floor is not None:
        keep = np.flatnonzero(score >= floor)
        row, score = row[keep], score[keep]
    # (the k-th of the negated: partitioning toward the end was 10x slower on many equal scores)
    kth = -np.partition(-score, k - 1)[k - 1]
    better = np.flatnonzero(score > kth)
    tied = np.flatnonzero(score == kth)  # rows ascend: the earliest first
    if seq is not None and len(tied) > k - len(better):
        at = row[tied]
        tied = tied[np.lexsort((at, seq[at]))]
    pick = np.concatenate([better, tied[: k - len(better)]])
    return row[pick], score[pick]


def _sieve(score: np.ndarray, k: int, alive: np.ndarray | None = None) -> float | None:
    """When ``score`` is long (16 x k x SIEVE_SHARE or more), the k-th best of every step-th
    (of the ``alive`` ones): at least k are at or above it, so the k-th best of all is too,
    and those under it can go before that is looked for; None: too few to sieve."""
    step = len(score) // (k * SIEVE_SHARE)
    if step < 16:
        return None
    sample = score[::step] if alive is None else score[::step] * alive[::step]
    return float(-np.partition(-sample, k - 1)[k - 1])


def _hits(sums: np.ndarray, alive: np.ndarray, k: int) -> np.ndarray:
    """The live rows with a score in ``sums`` (every part is > 0: a hit's sum too), ascending;
    when there are many, only those that may be among the ``k`` best (``_sieve``)."""
    floor = _sieve(sums, k, alive)
    if floor is not None and floor > 0:
        keep = np.flatnonzero(sums >= floor)
        return keep[alive[keep]]
    return np.flatnonzero((sums > 0) & alive)


def _sums(row: np.ndarray, part: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row once and the sum of its parts, added in the order given (``row`` sorted,
    a row's parts together): np.add.reduceat would add a row's later parts first."""
    first = np.empty(len(row), bool)
    first[:1] = True
    np.not_equal(row[1:], row[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    sums = part[starts]
    if len(starts) < len(row):
        more = np.flatnonzero(~first)  # add.at adds repeated indices one by one, in order
        np.add.at(sums, np.searchsorted(starts, more, "right") - 1, part[more])
    return row[starts], sums
