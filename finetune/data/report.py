"""The diversity report: is the data varied, balanced, and not one frame repeated?

Per role and split: counts per domain and per source kind (seed, template, multi-fact,
world), distinct predicates, distinct input word 3-grams over all 3-grams, the mean pairwise
3-gram Jaccard of a fixed sample, the share with no facts (engram) or no recall (recall), and
the most repeated frames. Printed as a rich table, written as JSON.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from finetune.data.dedup import input_text, jaccard, normalise, shingles
from finetune.data.recipe import Example
from finetune.data.splits import SPLITS
from finetune.records import EngramExample, RecallExample

SAMPLE = 150  # examples whose pairwise similarity is averaged (all pairs of the sample)


def source_kind(source: str) -> str:
    if source == "seed":
        return "seed"
    if source.startswith("gen:world"):
        return "world"
    return "multi" if "+" in source else "template"


def frame_of(source: str) -> str:
    """The frame a source names ("gen:pets.named+work.boss" -> "pets.named")."""
    return source.removeprefix("gen:").split("+")[0]


def split_report(rows: Sequence[Example]) -> dict[str, Any]:
    grams: list[str] = []
    for ex in rows:
        toks = normalise(input_text(ex)).split()
        grams += [" ".join(toks[i : i + 3]) for i in range(max(0, len(toks) - 2))]
    sample = random.Random(len(rows)).sample(list(rows), min(SAMPLE, len(rows)))
    sets = [shingles(input_text(ex)) for ex in sample]
    pairs = [jaccard(a, b) for a, b in combinations(sets, 2)]
    engram = [ex for ex in rows if isinstance(ex, EngramExample)]
    recall = [ex for ex in rows if isinstance(ex, RecallExample)]
    frames = Counter(frame_of(ex.source) for ex in rows if ex.source != "seed")
    out: dict[str, Any] = {
        "examples": len(rows),
        "domains": dict(sorted(Counter(ex.domain for ex in rows).items())),
        "sources": dict(sorted(Counter(source_kind(ex.source) for ex in rows).items())),
        "groups": len({ex.group for ex in rows}),
        "distinct_3grams": len(set(grams)),
        "total_3grams": len(grams),
        "distinct_3gram_ratio": round(len(set(grams)) / len(grams), 4) if grams else None,
        "mean_pairwise_jaccard": round(sum(pairs) / len(pairs), 4) if pairs else None,
        "top_frames": frames.most_common(5),
    }
    if engram:
        preds = Counter(f.predicate for ex in engram for f in ex.output.facts)
        out["distinct_predicates"] = len(preds)
        out["facts"] = sum(preds.values())
        out["no_fact_share"] = round(sum(not ex.output.facts for ex in engram) / len(engram), 4)
    if recall:
        out["no_recall_share"] = round(sum(not ex.output.recall for ex in recall) / len(recall), 4)
        out["blocks"] = dict(sorted(Counter(ex.output.blocks for ex in recall).items()))
        out["queries_per_recall"] = round(
            sum(len(ex.output.queries) for ex in recall)
            / max(1, sum(ex.output.recall for ex in recall)),
            3,
        )
    return out


def report(splits: Mapping[str, Mapping[str, Sequence[Example]]]) -> dict[str, Any]:
    """role -> split -> stats, for splits given as role -> split -> examples."""
    return {
        role: {s: split_report(rows[s]) for s in SPLITS if s in rows}
        for role, rows in splits.items()
    }


def print_report(rep: Mapping[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    table = Table(title="finetune data: diversity per role and split")
    for col in (
        "role", "split", "examples", "seed", "template", "multi", "world", "domains",
        "groups", "predicates", "3-gram distinct", "mean sim", "empty", "top frame",
    ):  # fmt: skip
        table.add_column(col, justify="left" if col in ("role", "split", "top frame") else "right")
    for role, splits in rep.items():
        for split in (s for s in SPLITS if s in splits):
            r = splits[split]
            src = r["sources"]
            top = r["top_frames"][0] if r["top_frames"] else ("-", 0)
            empty = r.get("no_fact_share", r.get("no_recall_share"))
            table.add_row(
                role,
                split,
                str(r["examples"]),
                str(src.get("seed", 0)),
                str(src.get("template", 0)),
                str(src.get("multi", 0)),
                str(src.get("world", 0)),
                str(len(r["domains"])),
                str(r["groups"]),
                str(r.get("distinct_predicates", "-")),
                f"{r['distinct_3gram_ratio']:.1%}" if r["distinct_3gram_ratio"] else "-",
                f"{r['mean_pairwise_jaccard']:.3f}"
                if r["mean_pairwise_jaccard"] is not None
                else "-",
                f"{empty:.0%}" if empty is not None else "-",
                f"{top[0]} ({top[1]})",
            )
    console.print(table)


def load_dir(root: Path) -> dict[str, dict[str, list[Example]]]:
    """The splits of a built directory (role/split.jsonl)."""
    out: dict[str, dict[str, list[Example]]] = {}
    for role, cls in (("engram", EngramExample), ("recall", RecallExample)):
        for split in SPLITS:
            path = root / role / f"{split}.jsonl"
            if path.is_file():
                lines = path.read_text(encoding="utf-8").splitlines()
                rows = [cls.model_validate_json(line) for line in lines if line.strip()]
                out.setdefault(role, {})[split] = rows  # type: ignore[assignment]
    return out


def write_json(rep: Mapping[str, Any], path: Path) -> None:
    path.write_text(json.dumps(rep, indent=2, ensure_ascii=False, sort_keys=True) + "\n")
