"""The seeded generator: seed examples + templates + the evolving-rules world -> splits.

Per role: the hand-written seed examples are validated (a broken one stops the build), their
near-duplicates dropped, clustered and dealt to splits by cluster; the generated groups
(frames, topics, world seeds) are dealt to splits, and each split is filled from its own
groups, balanced over domains, every example validated and checked against all kept examples
for near-duplicates (seeds first, then test, dev, train: a twin is dropped from the larger
split). The same seed gives the same examples in the same order.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from finetune.data.dedup import NearDupIndex, clusters, input_text
from finetune.data.engram_frames import FRAMES
from finetune.data.engram_gen import frame_recipes, frames_by_id, world_recipe
from finetune.data.recall_gen import FALSE_FRAMES, false_recipes, topic_recipes, world_recall_recipe
from finetune.data.recall_topics import TOPICS
from finetune.data.recipe import Example, Recipe
from finetune.data.splits import RATIOS, SEED_RATIOS, SPLITS, deal_groups, deal_sized
from finetune.data.style import SLOT
from finetune.data.validate import InvalidExampleError, validate_lines
from finetune.records import EngramExample, RecallExample

VERSION = "1"
ROLES = ("engram", "recall")
SEED_DIR = Path(__file__).resolve().parent / "seed"
N_WORLDS = 10
MAX_MISSES = 25  # near-duplicates in a row before a recipe counts as used up
TWIN_FRAMES = 0.5  # frames whose templates are this similar (3-gram Jaccard) share a group
TWIN_SEEDS = 0.5  # seed examples this similar share a group


@dataclass
class RoleData:
    """One role's splits and what happened on the way."""

    splits: dict[str, list[Example]] = field(default_factory=lambda: {s: [] for s in SPLITS})
    seed_kept: int = 0
    seed_dropped: list[str] = field(default_factory=list)  # near-duplicate seed ids
    generated_dropped: int = 0  # generated near-duplicates skipped
    groups: dict[str, dict[str, str]] = field(default_factory=dict)  # split -> {group: domain}


# --- seeds -----------------------------------------------------------------------------


def load_seed(path: Path, role: str) -> list[Example]:
    """The ``role`` examples of a JSONL seed file; a broken line (or one of another role)
    stops the build with every problem listed."""
    lines = path.read_text(encoding="utf-8").splitlines()
    problems = validate_lines(lines)
    if problems:
        raise InvalidExampleError(
            f"{path} has {len(problems)} problem(s); fix them (python -m finetune.data "
            f"validate {path}):\n" + "\n".join(f"  {p}" for p in problems[:40])
        )
    out: list[Example] = []
    for line in lines:
        if line.strip():
            raw = json.loads(line)
            if (raw.get("role") or role) != role:
                raise InvalidExampleError(
                    f"{path}: example {raw.get('id')!r} has role {raw.get('role')!r}; a "
                    f"{role} seed file holds {role} examples only"
                )
            cls = RecallExample if role == "recall" else EngramExample
            out.append(cls.model_validate(raw))
    return out


def seed_splits(
    seeds: Sequence[Example], index: NearDupIndex, data: RoleData
) -> dict[str, list[Example]]:
    """Near-duplicate seeds dropped (first kept), the rest clustered and dealt to splits."""
    kept: list[Example] = []
    for ex in seeds:
        if index.add(input_text(ex)):
            kept.append(ex)
        else:
            data.seed_dropped.append(ex.id)
    ids = clusters([input_text(ex) for ex in kept], TWIN_SEEDS)
    group_of = [f"seed:{kept[c].id}" for c in ids]
    sizes: dict[str, tuple[str, int]] = {}
    for ex, g in zip(kept, group_of, strict=True):
        domain, n = sizes.get(g, (ex.domain, 0))
        sizes[g] = (domain, n + 1)
    where = deal_sized(sizes, SEED_RATIOS)
    out: dict[str, list[Example]] = {s: [] for s in SPLITS}
    for ex, g in zip(kept, group_of, strict=True):
        out[where[g]].append(ex.model_copy(update={"group": g}))
        data.groups.setdefault(where[g], {})[g] = sizes[g][0]
    data.seed_kept = len(kept)
    return out


# --- generated groups ------------------------------------------------------------------


def frame_groups() -> dict[str, str]:
    """Engram frame id -> group: frames with nearly matching templates (slots as their pool
    names) are one group, named after its first frame id."""
    frames = sorted(frames_by_id())
    texts, owner = [], []
    for fid in frames:
        for t in frames_by_id()[fid].texts:
            texts.append(SLOT.sub(lambda m: f"<{m.group(1).rstrip('0123456789')}>", t))
            owner.append(fid)
    parent = {fid: fid for fid in frames}

    def find(x: str) -> str:
        while parent[x] != x:
            x = parent[x]
        return x

    first: dict[int, str] = {}
    for c, fid in zip(clusters(texts, TWIN_FRAMES), owner, strict=True):
        if c in first:
            a, b = sorted((find(fid), find(first[c])))
            parent[b] = a
        else:
            first[c] = fid
    return {fid: f"frame:{find(fid)}" for fid in frames}


def world_seeds(seed: int) -> dict[str, list[int]]:
    """World seeds per split: eight train worlds, one dev, one test."""
    seeds = [seed * 1000 + i for i in range(N_WORLDS)]
    return {"train": seeds[:-2], "dev": seeds[-2:-1], "test": seeds[-1:]}


def engram_recipes(seed: int) -> dict[str, list[Recipe]]:
    groups = frame_groups()
    frames = frames_by_id()
    domain_of = {g: frames[fid].domain for fid, g in sorted(groups.items(), reverse=True)}
    where = deal_groups(domain_of)
    out: dict[str, list[Recipe]] = {}
    for split in SPLITS:
        mine = [f for f in FRAMES if where[groups[f.id]] == split]
        game = sum(1 for f in mine if f.domain == "game_rules")
        out[split] = frame_recipes(mine, groups) + [
            world_recipe(s, max(1.0, float(game))) for s in world_seeds(seed)[split]
        ]
    return out


def recall_recipes(seed: int) -> dict[str, list[Recipe]]:
    domain_of = {f"topic:{t.key}": t.domain for t in TOPICS}
    domain_of |= {f"frame:recall.false.{f}": "small_talk" for f in FALSE_FRAMES}
    where = deal_groups(domain_of)
    out: dict[str, list[Recipe]] = {}
    for split in SPLITS:
        topics = [t for t in TOPICS if where[f"topic:{t.key}"] == split]
        falses = [f for f in FALSE_FRAMES if where[f"frame:recall.false.{f}"] == split]
        out[split] = (
            topic_recipes(topics)
            + false_recipes(falses)
            + [world_recall_recipe(s, 1.0) for s in world_seeds(seed)[split]]
        )
    return out


# --- filling a split -------------------------------------------------------------------


def fill_split(
    recipes: Sequence[Recipe],
    n: int,
    rng: random.Random,
    index: NearDupIndex,
    prefix: str,
    data: RoleData,
    progress: bool = False,
) -> list[Example]:
    """``n`` valid, near-duplicate-free examples, balanced over the recipes' domains."""
    alive: dict[str, list[Recipe]] = defaultdict(list)
    for r in recipes:
        alive[r.domain].append(r)
    domains = sorted(alive)
    out: list[Example] = []
    if not domains or n <= 0:
        return out
    base, extra = divmod(n, len(domains))
    quota = {d: base + (1 if i < extra else 0) for i, d in enumerate(domains)}
    misses: Counter[str] = Counter()
    bar = tqdm(total=n, desc=prefix, unit="ex", disable=not progress, leave=False)

    def draw(domain: str) -> bool:
        pool = alive[domain]
        r = rng.choices(pool, weights=[x.weight for x in pool])[0]
        ex = r.make(rng, f"{prefix}-{len(out):05d}")
        if index.add(input_text(ex)):
            out.append(ex)
            misses[r.id] = 0
            bar.update(1)
            return True
        data.generated_dropped += 1
        misses[r.id] += 1
        if misses[r.id] >= MAX_MISSES:
            pool.remove(r)
        return False

    for d in domains:
        made = 0
        while made < quota[d] and alive[d]:
            made += draw(d)
    while len(out) < n and any(alive.values()):  # domains used up: the others make up for them
        for d in domains:
            if alive[d] and len(out) < n:
                draw(d)
    bar.close()
    return out


def build(
    seed: int = 7,
    n_engram: int = 4000,
    n_recall: int = 3000,
    seed_dir: Path = SEED_DIR,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
) -> dict[str, RoleData]:
    """Both roles' splits: seeds dealt by cluster, generated examples filled per split."""
    out: dict[str, RoleData] = {}
    for role, n, make in (
        ("engram", n_engram, engram_recipes),
        ("recall", n_recall, recall_recipes),
    ):
        data = RoleData()
        index = NearDupIndex()
        path = seed_dir / f"{role}.jsonl"
        seeds = load_seed(path, role) if path.is_file() else []
        if log and not seeds:
            log(f"no seed examples for {role} ({path} missing or empty): generated only")
        by_split = seed_splits(seeds, index, data)
        recipes = make(seed)
        quotas = {"test": round(n * RATIOS["test"]), "dev": round(n * RATIOS["dev"])}
        quotas["train"] = n - quotas["test"] - quotas["dev"]
        for split in ("test", "dev", "train"):
            rng = random.Random(f"{seed}:{role}:{split}")
            made = fill_split(
                recipes[split], quotas[split], rng, index, f"gen-{role}-{split}", data, progress
            )
            for ex in made:
                data.groups.setdefault(split, {})[ex.group or ""] = ex.domain
            rows = by_split[split] + made
            random.Random(f"{seed}:{role}:{split}:order").shuffle(rows)
            data.splits[split] = rows
        out[role] = data
    return out
