"""Near-duplicate filtering: word 3-gram Jaccard over normalised input text, via MinHash LSH.

The first example of a near-twin family is kept, the later ones dropped: seeds go in first, so
a generated twin of a hand-written example never displaces it. MinHash (60 hashes, 20 bands
of 3) finds the candidates; the exact Jaccard of their 3-gram sets decides. Hashes are
blake2b, never Python's salted ``hash``, so the same input keeps the same examples.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections import defaultdict

import numpy as np

from finetune.data.validate import words
from finetune.records import EngramExample, RecallExample

THRESHOLD = 0.7  # Jaccard of word 3-grams at or above: a near-duplicate
_PRIME = np.uint64((1 << 31) - 1)
_BANDS, _ROWS = 20, 3
_rng = np.random.default_rng(20240607)
_A = _rng.integers(1, int(_PRIME), _BANDS * _ROWS, dtype=np.uint64)
_B = _rng.integers(0, int(_PRIME), _BANDS * _ROWS, dtype=np.uint64)


def input_text(ex: EngramExample | RecallExample) -> str:
    """What the model reads of an example, as compared for near-duplicates."""
    if isinstance(ex, EngramExample):
        return ex.input.turn
    return " \n ".join([*(t.text for t in ex.input.history), ex.input.message])


def normalise(text: str) -> str:
    return " ".join(words(unicodedata.normalize("NFKC", text)))


def shingles(text: str, n: int = 3) -> frozenset[str]:
    """Word n-grams of the normalised text (the whole text when it is shorter)."""
    toks = normalise(text).split()
    if len(toks) < n:
        return frozenset([" ".join(toks)])
    return frozenset(" ".join(toks[i : i + n]) for i in range(len(toks) - n + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def _signature(sh: frozenset[str]) -> np.ndarray:
    x = np.array(
        [int.from_bytes(hashlib.blake2b(s.encode(), digest_size=4).digest(), "little") for s in sh],
        dtype=np.uint64,
    )
    return ((_A[:, None] * x[None, :] + _B[:, None]) % _PRIME).min(axis=1)


class NearDupIndex:
    """Texts seen so far; ``add`` keeps a text unless it nearly duplicates one already kept."""

    def __init__(self, threshold: float = THRESHOLD) -> None:
        self.threshold = threshold
        self.sets: list[frozenset[str]] = []
        self.buckets: dict[tuple[int, bytes], list[int]] = defaultdict(list)

    def __len__(self) -> int:
        return len(self.sets)

    def nearest(self, text: str) -> tuple[int | None, float]:
        """The most similar kept text among the LSH candidates, and its Jaccard."""
        sh = shingles(text)
        best, score = None, 0.0
        for j in self._candidates(_signature(sh)):
            s = jaccard(sh, self.sets[j])
            if s > score:
                best, score = j, s
        return best, score

    def _candidates(self, sig: np.ndarray) -> set[int]:
        out: set[int] = set()
        for b in range(_BANDS):
            out.update(self.buckets.get((b, sig[b * _ROWS : (b + 1) * _ROWS].tobytes()), ()))
        return out

    def add(self, text: str) -> bool:
        """Keep ``text`` (True) unless a kept text is a near-duplicate of it (False)."""
        sh = shingles(text)
        sig = _signature(sh)
        if any(jaccard(sh, self.sets[j]) >= self.threshold for j in self._candidates(sig)):
            return False
        i = len(self.sets)
        self.sets.append(sh)
        for b in range(_BANDS):
            self.buckets[(b, sig[b * _ROWS : (b + 1) * _ROWS].tobytes())].append(i)
        return True


def clusters(texts: list[str], threshold: float) -> list[int]:
    """A cluster id per text: texts linked by Jaccard >= ``threshold`` share one (union-find
    over LSH candidates), so near-twins can be kept in one split."""
    parent = list(range(len(texts)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    sets = [shingles(t) for t in texts]
    buckets: dict[tuple[int, bytes], list[int]] = defaultdict(list)
    for i, sh in enumerate(sets):
        sig = _signature(sh)
        cands: set[int] = set()
        for b in range(_BANDS):
            key = (b, sig[b * _ROWS : (b + 1) * _ROWS].tobytes())
            cands.update(buckets[key])
            buckets[key].append(i)
        for j in cands:
            if jaccard(sh, sets[j]) >= threshold:
                parent[find(i)] = find(j)
    return [find(i) for i in range(len(texts))]
