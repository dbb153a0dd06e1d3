"""The gold-label rules, checked mechanically: a bad example is named with its rule and fix.

Every example that goes into a split passes ``validate_example``: the hand-written seed set
when it is loaded, and every generated one when it is made (a bad template fails loudly).
Each check names the rule of the role it enforces; what a machine cannot check (is this
really a lasting fact? is the block right?) is left to review.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from finetune.records import EngramExample, Memory, RecallExample
from graph_db.errors import InvalidInputError
from graph_db.reconcile import FUNCTIONAL, FUNCTIONAL_PREFIXES, FUNCTIONAL_SUFFIXES
from graph_db.text import STOPWORDS, entity_key, predicate_key, terms

Example = EngramExample | RecallExample

_WORD = re.compile(r"\w+", re.UNICODE)
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\s+(?:but|though|although)\s+|\s*[-–—]\s+", re.I)


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


FIRST_PERSON = _set("i me my mine myself we us our ours ourselves")
SECOND_PERSON = _set("you your yours yourself yourselves")
THIRD_PERSON = _set(
    "he him his himself she her hers herself it its itself they them their theirs themselves that"
)
QUERY_PRONOUNS = FIRST_PERSON | SECOND_PERSON | THIRD_PERSON
MAX_QUERY_WORDS = 12
MAX_OBJECT_WORDS = 12
MIN_MEMORIES, MAX_MEMORIES = 3, 12
# a hedge in the sentence of a fact caps its confidence at 0.7 ...
HEDGES = (
    "i think",
    "i guess",
    "i suppose",
    "probably",
    "maybe",
    "might",
    "perhaps",
    "possibly",
    "not sure",
    "not 100",
)
# ... and a confidence under 0.7 needs one of these somewhere in the turn
SOFT_MARKERS = (
    *HEDGES,
    "i believe",
    "i reckon",
    "iirc",
    "if i remember",
    "likely",
    "apparently",
    "seems",
    "kind of",
    "kinda",
    "sort of",
    "could",
    "may",
    "hopefully",
    "hope",
    "hoping",
    "thinking about",
    "thinking of",
    "considering",
    "want to",
    "wanna",
    "planning",
    "plan to",
    "going to",
    "gonna",
    "unless",
    "if",
    "or",
)
FILLER = ("search for", "look up", "lookup", "find ", "query", "please", "memories about")
# a predicate with a built-in name in graph_db/reconcile.py: use that name
SYNONYMS = {
    "live_in": "lives_in",
    "resides_in": "lives_in",
    "living_in": "lives_in",
    "work_at": "works_at",
    "working_at": "works_at",
    "employed_at": "works_at",
    "work_for": "works_for",
    "employed_by": "works_for",
    "like": "likes",
    "love": "loves",
    "dislike": "dislikes",
    "hate": "hates",
    "enjoy": "enjoys",
    "own": "owns",
    "speak": "speaks",
    "is_allergic_to": "allergic_to",
    "has_allergy": "allergic_to",
    "allergy": "allergic_to",
    "has_allergy_to": "allergic_to",
    "pet": "has_pet",
    "has_pets": "has_pet",
    "study_at": "studies_at",
    "studying_at": "studies_at",
    "birth_date": "birthday",
}


@dataclass(frozen=True)
class Problem:
    """One broken rule: which (``rule``), where in the example, and how to fix it."""

    rule: str
    fix: str
    where: str = ""
    line: int | None = None
    id: str | None = None

    def __str__(self) -> str:
        at = ":".join(x for x in (f"line {self.line}" if self.line else "", self.id or "") if x)
        loc = f" {self.where}" if self.where else ""
        return f"{at + ': ' if at else ''}[{self.rule}]{loc}: {self.fix}"


class InvalidExampleError(InvalidInputError):
    """A generated or loaded example breaks a gold-label rule (the message lists them)."""


def is_functional(predicate: str) -> bool:
    """Single-valued by graph_db's built-in lists and name patterns (as reconcile decides)."""
    return (
        predicate in FUNCTIONAL
        or predicate.startswith(FUNCTIONAL_PREFIXES)
        or predicate.endswith(FUNCTIONAL_SUFFIXES)
    )


def words(text: str) -> list[str]:
    """Case-folded word tokens (NFKC)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def content_words(text: str) -> set[str]:
    """Word tokens without English function words."""
    return {w for w in words(text) if w not in STOPWORDS}


def pronouns_in(text: str, which: frozenset[str]) -> list[str]:
    """The pronoun tokens of ``text`` ("US" in capitals is the country, not "us")."""
    toks = _WORD.findall(unicodedata.normalize("NFKC", text))
    return [t for t in toks if t.casefold() in which and t != "US"]


def has_marker(text: str, markers: Iterable[str]) -> bool:
    low = " " + " ".join(words(text)) + " "
    return any(f" {m} " in low for m in markers)


def _as_model(ex: Mapping[str, Any] | Example) -> tuple[Example | None, list[Problem]]:
    if isinstance(ex, EngramExample | RecallExample):
        return ex, []
    if not isinstance(ex, Mapping):
        return None, [Problem("schema", f"an example is a JSON object, got {type(ex).__name__}")]
    role = ex.get("role")
    if role is None:
        inp = ex.get("input")
        role = "recall" if isinstance(inp, Mapping) and "message" in inp else "engram"
    if role not in ("engram", "recall"):
        return None, [Problem("schema.role", f"role is {role!r}; use 'engram' or 'recall'")]
    cls = EngramExample if role == "engram" else RecallExample
    problems = _extra_output_keys(ex, role)
    try:
        return cls.model_validate(dict(ex)), problems
    except ValidationError as e:
        for err in e.errors():
            where = ".".join(str(p) for p in err["loc"])
            problems.append(Problem("schema", f"{err['msg']} (see finetune/records.py)", where))
        return None, problems


def _extra_output_keys(ex: Mapping[str, Any], role: str) -> list[Problem]:
    """The output schemas ignore unknown keys at run time; a gold label must not have them."""
    out = ex.get("output")
    if not isinstance(out, Mapping):
        return []
    allowed = {"facts"} if role == "engram" else {"recall", "blocks", "queries"}
    problems = [
        Problem("schema.extra", f"unknown key {k!r} in the output; remove it", f"output.{k}")
        for k in out
        if k not in allowed
    ]
    if role == "engram" and isinstance(out.get("facts"), list):
        keys = {"subject", "predicate", "object", "confidence"}
        for i, f in enumerate(out["facts"]):
            if isinstance(f, Mapping):
                problems += [
                    Problem(
                        "schema.extra",
                        f"unknown key {k!r} in a fact; remove it",
                        f"output.facts[{i}].{k}",
                    )
                    for k in f
                    if k not in keys
                ]
    return problems


def validate_example(ex: Mapping[str, Any] | Example) -> list[Problem]:
    """Every rule ``ex`` breaks (empty: it is a valid gold example)."""
    model, problems = _as_model(ex)
    if model is None:
        return problems
    if model.source != "seed" and not model.source.startswith("gen:"):
        problems.append(
            Problem("schema.source", f"source is {model.source!r}; use 'seed' or 'gen:<name>'")
        )
    if isinstance(model, EngramExample):
        problems += _engram(model)
    else:
        problems += _recall(model)
    return [
        Problem(p.rule, p.fix, p.where, p.line, model.id) if p.id is None else p for p in problems
    ]


# --- engram ----------------------------------------------------------------------------


def _engram(ex: EngramExample) -> list[Problem]:
    inp, facts = ex.input, ex.output.facts
    out: list[Problem] = []
    people = {entity_key(inp.speaker), entity_key(inp.user)}
    known = {entity_key(x) for f in inp.facts for x in (f.subject, f.object)}
    current = {
        (entity_key(f.subject), predicate_key(f.predicate), entity_key(f.object)) for f in inp.facts
    }
    turn_words = set(words(inp.turn))
    seen: set[tuple[str, str, str]] = set()
    functional_values: dict[tuple[str, str], set[str]] = {}
    for i, f in enumerate(facts):
        at = f"output.facts[{i}]"
        for side in ("subject", "object"):
            value = getattr(f, side)
            if pronoun := pronouns_in(value, FIRST_PERSON):
                out.append(
                    Problem(
                        "engram.first_person",
                        f"{side} {value!r} has {pronoun[0]!r}: write the speaker's name "
                        f"({inp.speaker!r}) for I/me/my, or the thing itself without 'my'",
                        f"{at}.{side}",
                    )
                )
            elif pronoun := pronouns_in(value, SECOND_PERSON):
                out.append(
                    Problem(
                        "engram.second_person",
                        f"{side} {value!r} has {pronoun[0]!r}: 'you' is never an entity; name "
                        "who is meant or drop the fact",
                        f"{at}.{side}",
                    )
                )
            elif not _grounded(value, people, known, turn_words, inp.date):
                out.append(
                    Problem(
                        "engram.grounding",
                        f"{side} {value!r} is invented: use the speaker/user, a span of the turn "
                        "(its content words all in the turn) or an entity of a given fact",
                        f"{at}.{side}",
                    )
                )
        p = f.predicate
        if predicate_key(p) != p:
            out.append(
                Problem(
                    "engram.predicate_normalised",
                    f"predicate {p!r} is not in normal form: write {predicate_key(p)!r}",
                    f"{at}.predicate",
                )
            )
        elif not _SNAKE.match(p):
            out.append(
                Problem(
                    "engram.predicate_snake_case",
                    f"predicate {p!r} is not snake_case (^[a-z][a-z0-9]*(_[a-z0-9]+)*$): "
                    "words joined by single underscores, e.g. 'lives_in'",
                    f"{at}.predicate",
                )
            )
        elif p in SYNONYMS:
            out.append(
                Problem(
                    "engram.predicate_vocabulary",
                    f"predicate {p!r} has a built-in name: write {SYNONYMS[p]!r}",
                    f"{at}.predicate",
                )
            )
        if len(words(f.object)) > MAX_OBJECT_WORDS:
            out.append(
                Problem(
                    "engram.object_too_long",
                    f"object has {len(words(f.object))} words: copy a short span of the turn "
                    f"(<= {MAX_OBJECT_WORDS} words)",
                    f"{at}.object",
                )
            )
        key = (entity_key(f.subject), predicate_key(p), entity_key(f.object))
        if key[0] == key[2]:
            out.append(
                Problem(
                    "engram.self_loop", "subject and object are the same entity; drop the fact", at
                )
            )
        if key in seen:
            out.append(Problem("engram.duplicate_fact", "the same fact twice; keep one", at))
        seen.add(key)
        if key in current:
            out.append(
                Problem(
                    "engram.restated",
                    f"({f.subject}, {p}, {f.object}) is already a current fact: never restate an "
                    "unchanged fact; drop it",
                    at,
                )
            )
        if is_functional(key[1]):
            functional_values.setdefault(key[:2], set()).add(key[2])
        out += _confidence(f.confidence, f.object, inp.turn, at)
    for (s, p), values in functional_values.items():
        if len(values) > 1:
            out.append(
                Problem(
                    "engram.functional_one_value",
                    f"{p} is single-valued but {s!r} gets {len(values)} values "
                    f"({', '.join(sorted(values))}): keep only the new, current value",
                    "output.facts",
                )
            )
    return out


def _grounded(
    value: str, people: set[str], known: set[str], turn_words: set[str], date: str
) -> bool:
    key = entity_key(value)
    if key in people or key in known or key == date:
        return True
    need = content_words(value) or set(words(value))
    return bool(need) and need <= turn_words


def _confidence(conf: float, obj: str, turn: str, at: str) -> list[Problem]:
    if conf < 0.5:
        return [
            Problem(
                "engram.confidence_range",
                f"confidence {conf} < 0.5: a gold fact that unsure is not stored; drop it or "
                "raise it (0.9-1.0 plain, 0.5-0.7 hedged, 0.7-0.9 plans)",
                f"{at}.confidence",
            )
        ]
    need = content_words(obj) or set(words(obj))
    sentences = [s for s in _SENTENCE.split(turn) if need <= set(words(s))]
    if conf > 0.7 and any(has_marker(s, HEDGES) for s in sentences):
        return [
            Problem(
                "engram.hedged_confidence",
                f"the sentence stating {obj!r} is hedged: confidence 0.5-0.7, not {conf}",
                f"{at}.confidence",
            )
        ]
    if conf < 0.7 and not has_marker(turn, SOFT_MARKERS):
        return [
            Problem(
                "engram.unhedged_confidence",
                f"confidence {conf} but the turn has no hedge: plain statements are 0.9-1.0, "
                "plans 0.7-0.9",
                f"{at}.confidence",
            )
        ]
    return []


# --- recall ----------------------------------------------------------------------------


def _recall(ex: RecallExample) -> list[Problem]:
    plan, out = ex.output, []
    queries = plan.queries
    if not plan.recall:
        if queries:
            out.append(
                Problem(
                    "recall.false_has_queries",
                    "recall is false: queries must be []",
                    "output.queries",
                )
            )
        if ex.gold:
            out.append(
                Problem(
                    "recall.false_has_gold",
                    "recall is false: gold must be [] (nothing answers)",
                    "gold",
                )
            )
    else:
        if not queries:
            out.append(
                Problem(
                    "recall.no_queries",
                    "recall is true: write 1-3 search queries",
                    "output.queries",
                )
            )
        if not ex.gold:
            out.append(
                Problem(
                    "recall.no_gold",
                    "recall is true: gold must name the memories that answer (indexes)",
                    "gold",
                )
            )
    normal = [" ".join(words(q)) for q in queries]
    if len(set(normal)) < len(normal):
        out.append(
            Problem(
                "recall.duplicate_query",
                "two queries are the same: one query per thing asked",
                "output.queries",
            )
        )
    for i, q in enumerate(queries):
        at = f"output.queries[{i}]"
        if pronoun := pronouns_in(q, QUERY_PRONOUNS):
            out.append(
                Problem(
                    "recall.query_pronoun",
                    f"query {q!r} has {pronoun[0]!r}: resolve it from the history to a name "
                    f"({ex.input.user!r} for first person)",
                    at,
                )
            )
        if len(words(q)) > MAX_QUERY_WORDS:
            out.append(
                Problem(
                    "recall.query_too_long",
                    f"query has {len(words(q))} words; keep <= {MAX_QUERY_WORDS}, no filler",
                    at,
                )
            )
        if q.casefold().lstrip().startswith(FILLER):
            out.append(
                Problem(
                    "recall.query_filler",
                    f"query {q!r} starts with filler; write the search terms",
                    at,
                )
            )
        if not content_words(q):
            out.append(
                Problem(
                    "recall.query_empty", f"query {q!r} has no content word; name what to find", at
                )
            )
    n = len(ex.memories)
    if not MIN_MEMORIES <= n <= MAX_MEMORIES:
        out.append(
            Problem(
                "recall.memories_count",
                f"{n} memories: the fixture graph has {MIN_MEMORIES}-{MAX_MEMORIES} (gold and "
                "distractors sharing names and topics)",
                "memories",
            )
        )
    for i, m in enumerate(ex.memories):
        if m.kind == "episode" and (not m.speaker or not m.date):
            out.append(
                Problem(
                    "recall.episode_fields",
                    "an episode has a speaker and a date (YYYY-MM-DD)",
                    f"memories[{i}]",
                )
            )
    if len(set(ex.gold)) < len(ex.gold):
        out.append(Problem("recall.gold_duplicate", "a gold index twice; list each once", "gold"))
    query_terms = set(terms(" ".join(queries)).split())
    for g in ex.gold:
        if not 0 <= g < n:
            out.append(Problem("recall.gold_range", f"gold index {g} is not in 0..{n - 1}", "gold"))
        elif queries and not set(terms(_indexed(ex.memories[g])).split()) & query_terms:
            out.append(
                Problem(
                    "recall.gold_unreachable",
                    f"gold memory {g} shares no content word with any query: name what it is "
                    "about in a query",
                    "gold",
                )
            )
    return out


def _indexed(m: Memory) -> str:
    """The text recall searches: an episode is indexed with its speaker ("Maya: I moved")."""
    return f"{m.speaker}: {m.text}" if m.speaker else m.text


# --- files -----------------------------------------------------------------------------


def validate_lines(lines: Iterable[str]) -> list[Problem]:
    """Problems of JSONL lines (numbered from 1), unique ids included; blank lines skipped."""
    problems: list[Problem] = []
    ids: dict[str, int] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            ex = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(Problem("json", f"not JSON ({e.msg}); one object per line", line=n))
            continue
        for p in validate_example(ex):
            problems.append(Problem(p.rule, p.fix, p.where, n, p.id))
        ident = ex.get("id") if isinstance(ex, dict) else None
        if isinstance(ident, str):
            if ident in ids:
                problems.append(
                    Problem(
                        "file.duplicate_id",
                        f"id {ident!r} is also on line {ids[ident]}; ids are unique in a file",
                        line=n,
                        id=ident,
                    )
                )
            else:
                ids[ident] = n
    return problems


def validate_file(path: str | Path) -> list[Problem]:
    """Problems of a JSONL file, each with its line number."""
    path = Path(path)
    if not path.is_file():
        raise InvalidInputError(f"{path} is not a file; pass a JSONL file of examples")
    with path.open(encoding="utf-8") as fh:
        return validate_lines(fh)


def check_example(ex: Mapping[str, Any] | Example) -> None:
    """Raise ``InvalidExampleError`` listing every problem (for generators: fail loudly)."""
    problems = validate_example(ex)
    if problems:
        ident = ex.id if isinstance(ex, EngramExample | RecallExample) else ex.get("id")
        raise InvalidExampleError(
            f"example {ident!r} breaks the gold-label rules (fix its template or seed line):\n"
            + "\n".join(f"  {p}" for p in problems)
        )
