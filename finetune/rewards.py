"""GRPO rewards of the engram and recall roles, as plain functions with TRL's signature.

Every reward lies in [0, 1]; 1 is a perfect answer, and an answer that does not parse as the
role's JSON scores 0 on every reward but ``format`` (so nothing pays for broken output):

- ``format``: 0 without a JSON object; ``schema_invalid`` (0.2) for JSON that breaks the
  schema; else 1 minus penalties (a code fence, other text or a <think> block outside it,
  repaired trailing commas, extra keys, a broken contract, non-Latin script), at least
  ``valid_floor`` (0.3). See ``finetune/configs/rewards.toml``.
- ``grounding`` (engram): share of triplets whose subject and object are grounded: the
  speaker or user, a span of the turn (or all its content words in the turn), or an entity
  of a given current fact. First or second person ("I", "my sister", "you") never is.
  No triplets: 1 when the gold has none either, else 0 (silence must not pay).
- ``triplet_f1`` (engram): F1 of the triplets against gold; a pair matches on subject
  (``entity_key``, articles dropped), normalised predicate (``predicate_key`` + synonyms) and
  object (same key, or cosine >= ``object_similarity`` with the default embedder). Both
  empty: 1; one empty: 0.
- ``usefulness`` (recall): share of the gold memories in the union of each query's top-k
  from ``LiquidGraph.recall`` on the example's fixture graph (k: at most 3, and about a
  third of the memories but no fewer than the gold's: a small fixture is not found whole by
  any query, and the gold plan can still score 1).
  recall=false: 1 when the gold is empty, else 0; recall=true with empty gold:
  ``needless_recall`` (0.8).
- ``brevity``: exp(-excess / scale) for characters beyond a budget (1.5x the gold's JSON),
  facts or queries beyond the gold's count, and query words beyond 12: smooth, 1 within need.

TRL calls each with ``completions`` (strings, or lists of chat messages) and the dataset's
other columns in ``kwargs``, one value per completion. The rewards read the example from a
``record`` column (its JSONL line, see ``reward_columns``) or from the record's own fields as
columns (``role``, ``input``, ``output``, ``memories``, ``gold``). A row of the other role
gets None (TRL skips it). TRL itself is never imported here.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Annotated, Any, NamedTuple

import numpy as np
from pydantic import Field, TypeAdapter, ValidationError

from finetune.recall_fixture import FixtureGraphs
from finetune.records import EngramExample, RecallExample
from finetune.reward_config import RewardConfig, load_reward_config
from finetune.reward_parse import (
    SNAKE,
    Parsed,
    Role,
    completion_text,
    non_latin_share,
    parse_completion,
    string_values,
)
from graph_db.errors import InvalidInputError
from graph_db.text import entity_key, predicate_key, terms
from mags_langgraph.schemas import PERSONAL, Engram, RecallPlan

Example = EngramExample | RecallExample
RewardFunc = Callable[..., list[float | None]]
_EXAMPLE = TypeAdapter(Annotated[Example, Field(discriminator="role")])
_FIELDS = {"engram": set(EngramExample.model_fields), "recall": set(RecallExample.model_fields)}
_ARTICLE = re.compile(r"^(?:a|an|the)\s+")
_LETTERS = re.compile(r"[^\W\d_]+")
# spellings of one relation that predicate_key leaves apart; the right side is the vocabulary
PREDICATE_SYNONYMS = {
    "live_in": "lives_in",
    "living_in": "lives_in",
    "lives_at": "lives_in",
    "resides_in": "lives_in",
    "work_at": "works_at",
    "works_for": "works_at",
    "employed_at": "works_at",
    "employed_by": "works_at",
    "is_allergic_to": "allergic_to",
    "has_allergy_to": "allergic_to",
    "like": "likes",
    "love": "loves",
    "enjoy": "enjoys",
    "dislike": "dislikes",
    "has_a_pet": "has_pet",
    "owns_pet": "has_pet",
    "travelled_to": "traveled_to",
    "plan_to": "plans_to",
    "planning_to": "plans_to",
    "study_at": "studies_at",
    "studying_at": "studies_at",
    "is_married_to": "married_to",
}


# -- the example behind each completion -------------------------------------------------
def reward_columns(example: Example) -> dict[str, str]:
    """The dataset column the rewards read an example from (add it to each prompt row)."""
    return {"record": example.model_dump_json()}


@lru_cache(maxsize=4096)
def _from_record(record: str) -> Example:
    return _EXAMPLE.validate_json(record)


def _example(row: dict[str, Any]) -> Example:
    record = row.get("record")
    if isinstance(record, str):
        return _from_record(record)
    if isinstance(record, dict):
        return _EXAMPLE.validate_python(record)
    role = row.get("role") or ("recall" if "memories" in row or "gold" in row else "engram")
    known = _FIELDS.get(role, set())  # another role fails validation below, saying so
    fields = {k: v for k, v in row.items() if k in known and v is not None}
    return _EXAMPLE.validate_python({**fields, "role": role})


def examples_from(kwargs: dict[str, Any], n: int) -> list[Example]:
    """The example of each of ``n`` completions, from TRL's per-completion columns."""
    keys = [k for k in ("record", *_FIELDS["recall"], *_FIELDS["engram"]) if k in kwargs]
    if "record" not in kwargs and not {"input", "output"} <= set(keys):
        raise InvalidInputError(
            "the rewards need each completion's example: add a 'record' column "
            "(finetune.rewards.reward_columns(example)) or the record's fields as columns"
        )
    rows = [{k: kwargs[k][i] for k in dict.fromkeys(keys)} for i in range(n)]
    try:
        return [_example(row) for row in rows]
    except ValidationError as e:
        raise InvalidInputError(
            f"a dataset row is not an engram or recall example ({e.errors()[0]['msg']}); "
            "build the columns with finetune.rewards.reward_columns"
        ) from e


# -- format -----------------------------------------------------------------------------
def format_faults(parsed: Parsed, role: Role) -> list[str]:
    """What a format reward charges for in a parsed completion."""
    faults: list[str] = []
    if parsed.outside:
        faults.append("fence" if parsed.fenced_only else "prose")
    if parsed.repaired:
        faults.append("repaired")
    if parsed.extra_keys:
        faults.append("extra_keys")
    answer = parsed.answer
    if isinstance(answer, Engram):
        raw = [f.get("predicate") for f in (parsed.data or {}).get("facts", [])]
        if not all(isinstance(p, str) and SNAKE.match(p) for p in raw):
            faults.append("contract")
    elif isinstance(answer, RecallPlan):
        distinct = {q.casefold() for q in answer.queries}
        ok = len(distinct) == len(answer.queries) >= 1 if answer.recall else not answer.queries
        if not ok:
            faults.append("contract")
    return faults


def format_score(text: str, role: Role, config: RewardConfig) -> float:
    """Format reward of one completion text (see the module docstring for the scale)."""
    cfg = config.format
    parsed = parse_completion(text, role)
    if parsed.answer is None:
        return cfg.schema_invalid if parsed.json_found else 0.0
    penalty = {
        "fence": cfg.fence_penalty,
        "prose": cfg.prose_penalty,
        "repaired": cfg.repair_penalty,
        "extra_keys": cfg.extra_keys_penalty,
        "contract": cfg.contract_penalty,
    }
    score = 1.0 - sum(penalty[f] for f in format_faults(parsed, role))
    share = non_latin_share(string_values(parsed.data))
    score -= cfg.non_english_penalty * min(1.0, share / 0.5)
    return max(cfg.valid_floor, min(1.0, score))


# -- grounding (engram) ----------------------------------------------------------------------
def _norm_entity(name: str) -> str:
    return _ARTICLE.sub("", entity_key(name))


def is_personal(entity: str) -> bool:
    """First or second person ("I", "my sister", "you"): never an entity ("US" is one)."""
    return any(
        w == "I" or (w.lower() in PERSONAL and not (w.isupper() and len(w) > 1))
        for w in _LETTERS.findall(entity)
    )


@dataclass
class GroundingReport:
    """Grounding of one engram answer: its triplets, how many are grounded, and the
    entities that are not (``personal``: first/second person; ``invented``: the rest)."""

    triplets: int = 0
    grounded: int = 0
    invented: list[str] = field(default_factory=list)
    personal: list[str] = field(default_factory=list)

    @property
    def violations(self) -> int:
        return len(self.invented) + len(self.personal)

    @property
    def score(self) -> float:
        return self.grounded / self.triplets if self.triplets else 1.0


class _Context:
    """What an engram answer may name: the people, the turn, the current facts, the date."""

    def __init__(self, example: EngramExample) -> None:
        inp = example.input
        named = [inp.user, inp.speaker, *(x for f in inp.facts for x in (f.subject, f.object))]
        self.names = {_norm_entity(n) for n in named} | {inp.date}
        self.turn = entity_key(inp.turn)
        self.terms = set(terms(" ".join([inp.turn, *named])).split())

    def grounded(self, entity: str) -> bool:
        key = _norm_entity(entity)
        if not key:
            return False
        if key in self.names or re.search(rf"(?<!\w){re.escape(key)}(?!\w)", self.turn):
            return True
        words = set(terms(entity).split())
        return bool(words) and words <= self.terms


def grounding_report(text: str, example: EngramExample) -> GroundingReport | None:
    """The grounding of an engram completion; None when it does not parse."""
    answer = parse_completion(text, "engram").answer
    if not isinstance(answer, Engram):
        return None
    ctx = _Context(example)
    report = GroundingReport(triplets=len(answer.facts))
    for fact in answer.facts:
        ok = True
        for entity in (fact.subject, fact.object):
            if is_personal(entity):
                report.personal.append(entity)
                ok = False
            elif not ctx.grounded(entity):
                report.invented.append(entity)
                ok = False
        report.grounded += ok
    return report


def grounding_score(text: str, example: EngramExample) -> float:
    """``GroundingReport.score``; but no triplets where the gold has some scores 0: silence
    invents nothing, and paying it for that taught GRPO to answer every turn with no facts
    (measured: 16 steps on SmolLM2-135M, 199 of 200 test turns answered ``{"facts":[]}``)."""
    report = grounding_report(text, example)
    if report is None:
        return 0.0
    if not report.triplets:
        return 0.0 if example.output.facts else 1.0
    return report.score


def invented_entities(text: str, example: EngramExample) -> int:
    """Subjects and objects of an engram completion that nothing in the input names (first
    and second person included: they name nobody); 0 when it does not parse."""
    report = grounding_report(text, example)
    return report.violations if report is not None else 0


# -- triplet F1 (engram) -------------------------------------------------------------------
def norm_predicate(predicate: str) -> str:
    """A predicate as it is compared: snake case, US spelling, the vocabulary's synonym."""
    key = predicate_key(predicate).replace("favourite_", "favorite_").replace("colour", "color")
    return PREDICATE_SYNONYMS.get(key, key)


@cache
def default_embedder():
    """graph_db's default embedder (int8 ONNX MiniLM behind an LRU cache), loaded once."""
    from graph_db import GraphSettings
    from graph_db.embeddings import make_embedder

    return make_embedder(GraphSettings())


def triplet_prf(
    text: str, example: EngramExample, config: RewardConfig, embedder=None
) -> tuple[float, float, float] | None:
    """Precision, recall and F1 of an engram completion's triplets; None if it does not
    parse. Triplets are matched one to one, exact objects first, then by similarity."""
    answer = parse_completion(text, "engram").answer
    if not isinstance(answer, Engram):
        return None
    pred = [(_norm_entity(f.subject), norm_predicate(f.predicate), f.object) for f in answer.facts]
    gold = [
        (_norm_entity(f.subject), norm_predicate(f.predicate), f.object)
        for f in example.output.facts
    ]
    if not pred or not gold:
        return (1.0, 1.0, 1.0) if not pred and not gold else (0.0, 0.0, 0.0)
    pairs: list[tuple[float, int, int]] = []
    fuzzy: list[tuple[int, int]] = []
    for i, (ps, pp, po) in enumerate(pred):
        for j, (gs, gp, go) in enumerate(gold):
            if ps == gs and pp == gp:
                if _norm_entity(po) == _norm_entity(go):
                    pairs.append((2.0, i, j))
                else:
                    fuzzy.append((i, j))
    if fuzzy:
        model = embedder or default_embedder()
        texts = list(dict.fromkeys(t for i, j in fuzzy for t in (pred[i][2], gold[j][2])))
        vecs = dict(zip(texts, np.asarray(model.embed(texts)), strict=True))
        for i, j in fuzzy:
            sim = float(vecs[pred[i][2]] @ vecs[gold[j][2]])
            if sim >= config.triplet.object_similarity:
                pairs.append((sim, i, j))
    used_p: set[int] = set()
    used_g: set[int] = set()
    for _, i, j in sorted(pairs, reverse=True):
        if i not in used_p and j not in used_g:
            used_p.add(i)
            used_g.add(j)
    matched = len(used_p)
    p, r = matched / len(pred), matched / len(gold)
    return p, r, (2 * p * r / (p + r) if matched else 0.0)


def triplet_f1_score(text: str, example: EngramExample, config: RewardConfig, embedder=None):
    prf = triplet_prf(text, example, config, embedder)
    return prf[2] if prf is not None else 0.0


# -- recall usefulness ---------------------------------------------------------------------
@cache
def default_fixtures() -> FixtureGraphs:
    """The process's fixture graphs (opened on first use, with the default embedder)."""
    return FixtureGraphs(default_embedder())


def usefulness_score(
    text: str, example: RecallExample, config: RewardConfig, fixtures: FixtureGraphs | None = None
) -> float:
    """Share of the gold memories a recall completion's queries bring back (see above)."""
    plan = parse_completion(text, "recall").answer
    if not isinstance(plan, RecallPlan):
        return 0.0
    gold = list(dict.fromkeys(example.gold))
    if not plan.recall:
        return 0.0 if gold else 1.0
    if not gold:
        return config.usefulness.needless_recall
    if not plan.queries:
        return 0.0
    bad = [g for g in gold if not 0 <= g < len(example.memories)]
    if bad:
        raise InvalidInputError(
            f"example {example.id}: gold indexes {bad} are not in its {len(example.memories)} "
            "memories; fix the example (finetune/data validator)"
        )
    cfg = config.usefulness
    fixtures = fixtures or default_fixtures()
    ns, ids = fixtures.memory_ids(example)
    blocks = plan.blocks if cfg.use_blocks else "both"
    k = cfg.top_k(len(example.memories), len(gold))
    found = fixtures.found(ns, plan.queries, k, blocks, cfg.history)
    return sum(ids[g] in found for g in gold) / len(gold)


# -- brevity ---------------------------------------------------------------------------------
def brevity_score(text: str, example: Example, config: RewardConfig) -> float:
    """1 within need, decaying smoothly with characters, items and query words beyond it."""
    role: Role = example.role
    answer = parse_completion(text, role).answer
    if answer is None:
        return 0.0
    cfg = config.brevity
    reference = json.dumps(example.output.model_dump(mode="json"), separators=(",", ":"))
    budget = max(cfg.min_chars, cfg.char_slack * len(reference))
    excess = max(0.0, len(text.strip()) - budget) / cfg.char_scale
    if isinstance(answer, Engram) and isinstance(example, EngramExample):
        excess += max(0, len(answer.facts) - len(example.output.facts)) / cfg.item_scale
    elif isinstance(answer, RecallPlan) and isinstance(example, RecallExample):
        excess += max(0, len(answer.queries) - len(example.output.queries)) / cfg.item_scale
        words = sum(max(0, len(q.split()) - cfg.query_words) for q in answer.queries)
        excess += words / cfg.word_scale
    return math.exp(-excess)


# -- TRL-ready functions -----------------------------------------------------------------------
class RewardSet(NamedTuple):
    """Reward functions and their weights, in the same order (``GRPOConfig.reward_weights``)."""

    funcs: list[RewardFunc]
    weights: list[float]


def _trl(role: Role, name: str, score: Callable[[str, Any], float], per_example: bool):
    def reward(completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
        texts = [completion_text(c) for c in completions]
        if not per_example:
            return [score(t, None) for t in texts]
        examples = examples_from(kwargs, len(texts))
        return [
            score(t, ex) if ex.role == role else None for t, ex in zip(texts, examples, strict=True)
        ]

    reward.__name__ = reward.__qualname__ = f"{role}_{name}"  # TRL logs rewards/<name>
    reward.__doc__ = f"The {name} reward of the {role} role, in [0, 1] (finetune.rewards)."
    return reward


def combined(
    config: RewardConfig | None = None,
    role: Role = "engram",
    *,
    embedder=None,
    fixtures: FixtureGraphs | None = None,
) -> RewardSet:
    """The role's rewards whose weight is not 0, as TRL reward functions, with the weights
    (``GRPOTrainer(reward_funcs=funcs)``, ``GRPOConfig(reward_weights=weights)``)."""
    cfg = config or load_reward_config()
    scores: dict[str, tuple[Callable[[str, Any], float], bool]] = {
        "format": (lambda t, _: format_score(t, role, cfg), False),
        "brevity": (lambda t, ex: brevity_score(t, ex, cfg), True),
    }
    if role == "engram":
        weights = cfg.weights.engram.named()
        scores["grounding"] = (grounding_score, True)
        scores["triplet_f1"] = (lambda t, ex: triplet_f1_score(t, ex, cfg, embedder), True)
    elif role == "recall":
        weights = cfg.weights.recall.named()
        scores["usefulness"] = (lambda t, ex: usefulness_score(t, ex, cfg, fixtures), True)
    else:
        raise InvalidInputError(f"role must be 'engram' or 'recall', not {role!r}")
    funcs = [_trl(role, name, *scores[name]) for name in weights]
    return RewardSet(funcs, list(weights.values()))
