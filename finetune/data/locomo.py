"""LoCoMo conversations as MAGS reads them (the benchmarks and ``mags tune`` share this).

A file of the LoCoMo release holds sessions of turns (with a date each) and questions with
their evidence turns. Image turns keep their caption as text; a turn's time is its
session's date plus its index in seconds, so turns keep their order.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from graph_db.errors import MagsError

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def load(path: Path) -> tuple[list[dict], list[dict]]:
    """Turns (id, speaker, text, session, ts) and the questions of categories 1-4 (5, the
    adversarial one, has no answer in the conversation) whose evidence is among the turns."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise MagsError(f"cannot read the LoCoMo conversation {path}: {e}") from None
    turns, n = [], 1
    while f"session_{n}_date_time" in data:
        when = datetime.strptime(data[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
        for i, t in enumerate(data.get(f"session_{n}") or []):
            text = t["text"]
            if t.get("blip_caption"):
                text += f" [shares a photo: {t['blip_caption']}]"
            ts = when.replace(tzinfo=UTC).timestamp() + i
            turns.append(
                {"id": t["dia_id"], "speaker": t["speaker"], "text": text, "session": n, "ts": ts}
            )
        n += 1
    ids = {t["id"] for t in turns}
    qa = [
        q
        for q in data["qa"]
        if q.get("category") in CATEGORIES and q.get("evidence") and set(q["evidence"]) & ids
    ]
    return turns, qa
