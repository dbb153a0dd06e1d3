"""Leak-free splits: whole groups go to one split, so no near-twin of a test example is trained.

Generated groups (template frames, topics, worlds) are ordered by a stable hash of their name
and dealt per domain: every domain with three groups or more gives one or more to dev and to
test, the rest train; the generator then fills each split from its own groups. Seed groups
(clusters of similar hand-written examples) are dealt by size per domain, toward the seed
ratios, so the test split holds a fair share of the examples closest to real use.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping

SPLITS = ("train", "dev", "test")
RATIOS = {"train": 0.8, "dev": 0.1, "test": 0.1}
SEED_RATIOS = {"train": 0.6, "dev": 0.2, "test": 0.2}


def stable(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()


def deal_groups(domains: Mapping[str, str], ratios: Mapping[str, float] = RATIOS) -> dict[str, str]:
    """Group -> split for equal-weight groups (the generator sets the counts): per domain in
    stable order, round(ratio x n) to test and dev, at least one each from three groups up."""
    by_domain: dict[str, list[str]] = defaultdict(list)
    for group, domain in domains.items():
        by_domain[domain].append(group)
    out: dict[str, str] = {}
    for groups in by_domain.values():
        groups.sort(key=stable)
        n = len(groups)
        n_test = max(1, round(ratios["test"] * n)) if n >= 3 else 0
        n_dev = max(1, round(ratios["dev"] * n)) if n >= 3 else 0
        for i, g in enumerate(groups):
            out[g] = "test" if i < n_test else "dev" if i < n_test + n_dev else "train"
    return out


def deal_sized(
    groups: Mapping[str, tuple[str, int]], ratios: Mapping[str, float] = SEED_RATIOS
) -> dict[str, str]:
    """Group -> split for groups of given sizes (group -> (domain, size)): per domain, each
    group in stable order goes to the split furthest below its share of the domain so far."""
    by_domain: dict[str, list[str]] = defaultdict(list)
    for g, (domain, _) in groups.items():
        by_domain[domain].append(g)
    out: dict[str, str] = {}
    for names in by_domain.values():
        names.sort(key=stable)
        have = dict.fromkeys(SPLITS, 0)
        total = 0
        for g in names:
            size = groups[g][1]
            total += size
            # the furthest below its share; ties go to test, then dev (the small splits)
            split = max(("test", "dev", "train"), key=lambda s: ratios[s] * total - have[s])
            out[g] = split
            have[split] += size
    return out
