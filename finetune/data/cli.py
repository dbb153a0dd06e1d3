"""``python -m finetune.data build|validate|report``: build the splits, check files, report.

build writes DIR/engram/{train,dev,test}.jsonl, DIR/recall/..., manifest.json (version,
seed, counts, sha256 of every file and of the seed files) and report.json; the same seed
gives byte-identical files. validate exits 1 listing every problem of the files given.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from finetune.data.generate import ROLES, SEED_DIR, VERSION, build
from finetune.data.recipe import Example
from finetune.data.report import load_dir, print_report, report, write_json
from finetune.data.splits import RATIOS, SEED_RATIOS, SPLITS
from finetune.data.validate import validate_file
from graph_db.errors import MagsError

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = Path(__file__).resolve().parent / "build" / f"v{VERSION}"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _rel(path: Path) -> str:
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return path.name


def write_jsonl(path: Path, rows: Sequence[Example]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for ex in rows:
            fh.write(json.dumps(ex.model_dump(mode="json"), ensure_ascii=False) + "\n")


def cmd_build(args: argparse.Namespace, console: Console) -> int:
    out: Path = args.out
    console.log(f"building v{VERSION} (seed {args.seed}) into {out}")
    data = build(args.seed, args.n_engram, args.n_recall, args.seed_dir, progress=True,
                 log=lambda m: console.print(f"[yellow]{m}[/]"))  # fmt: skip
    files: dict[str, str] = {}
    for role in ROLES:
        for split in SPLITS:
            path = out / role / f"{split}.jsonl"
            write_jsonl(path, data[role].splits[split])
            files[f"{role}/{split}.jsonl"] = sha256(path)
    rep = report({role: data[role].splits for role in ROLES})
    for role in ROLES:
        d = data[role]
        rep[role]["build"] = {
            "seed_kept": d.seed_kept,
            "seed_near_duplicates_dropped": d.seed_dropped,
            "generated_near_duplicates_skipped": d.generated_dropped,
            "groups_per_split": {s: len(d.groups.get(s, {})) for s in SPLITS},
        }
    write_json(rep, out / "report.json")
    seed_files: dict[str, Any] = {}
    for role in ROLES:
        p = args.seed_dir / f"{role}.jsonl"
        seed_files[_rel(p)] = sha256(p) if p.is_file() else None
    manifest = {
        "version": VERSION,
        "seed": args.seed,
        "requested": {"engram": args.n_engram, "recall": args.n_recall},
        "ratios": {"generated": RATIOS, "seed": SEED_RATIOS},
        "counts": {r: {s: len(data[r].splits[s]) for s in SPLITS} for r in ROLES},
        "seed_counts": {
            r: {s: sum(ex.source == "seed" for ex in data[r].splits[s]) for s in SPLITS}
            for r in ROLES
        },
        "files": files,
        "seed_files": seed_files,
        "report": "report.json",
        "report_sha256": sha256(out / "report.json"),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    print_report(rep, console)
    for role in ROLES:
        b = rep[role]["build"]
        console.print(
            f"{role}: {b['seed_kept']} seed kept, {len(b['seed_near_duplicates_dropped'])} seed "
            f"near-duplicates dropped, {b['generated_near_duplicates_skipped']} generated "
            "near-duplicates skipped"
        )
    console.print(f"wrote {out}/manifest.json")
    return 0


def cmd_validate(args: argparse.Namespace, console: Console) -> int:
    bad = 0
    for f in args.files:
        problems = validate_file(f)
        n = sum(1 for line in Path(f).read_text(encoding="utf-8").splitlines() if line.strip())
        if problems:
            bad += len(problems)
            console.print(f"[red]{f}: {len(problems)} problem(s) in {n} lines[/]")
            for p in problems:
                console.print(f"  {p}", markup=False, highlight=False)
        else:
            console.print(f"[green]{f}: {n} examples, all valid[/]")
    return 1 if bad else 0


def cmd_report(args: argparse.Namespace, console: Console) -> int:
    splits = load_dir(args.dir)
    if not splits:
        console.print(f"[red]{args.dir} has no role/split.jsonl files; run build first[/]")
        return 1
    rep = report(splits)
    print_report(rep, console)
    if args.json:
        write_json(rep, args.json)
    return 0


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m finetune.data", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="generate, filter and split both roles' data")
    b.add_argument("--out", type=Path, default=DEFAULT_OUT)
    b.add_argument("--seed", type=int, default=7)
    b.add_argument("--n-engram", type=int, default=4000, help="generated engram examples")
    b.add_argument("--n-recall", type=int, default=3000, help="generated recall examples")
    b.add_argument("--seed-dir", type=Path, default=SEED_DIR, help="hand-written seed files")
    v = sub.add_parser("validate", help="check JSONL files against the gold-label rules")
    v.add_argument("files", nargs="+", type=Path)
    r = sub.add_parser("report", help="the diversity report of a built directory")
    r.add_argument("dir", type=Path)
    r.add_argument("--json", type=Path, default=None, help="also write the report here")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    console = Console()
    console.width = max(console.width, 150)  # the report table is wide; never wrap it
    try:
        return {"build": cmd_build, "validate": cmd_validate, "report": cmd_report}[args.command](
            args, console
        )
    except MagsError as e:
        console.print(f"[red]{escape(str(e))}[/]", highlight=False)
        return 1


if __name__ == "__main__":
    sys.exit(main())
