"""Engram: the write path of the liquid graph (episodes, facts, entities, initial edges).

Validation and embedding happen before a transaction opens, so a slow model never
holds locks; each batch is then one transaction. New memories get initial ASSOC
edges GAT-style, entities are merged by normalised name then by embedding, and a
near-duplicate fact is merged into the current one instead of stored again.
"""

from __future__ import annotations

import itertools
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np
from pydantic import ValidationError

from graph_db import clock
from graph_db.backends import GraphBackend, Tx
from graph_db.embeddings import Embedder, check_vectors
from graph_db.errors import InvalidInputError, NotFoundError
from graph_db.linking import attention_weights, chain_diff
from graph_db.models import EpisodeIn, FactIn, FactWrite, to_epoch
from graph_db.read_index import ReadIndex
from graph_db.reconcile import (
    Adjudicator,
    Cardinality,
    Conflict,
    FactView,
    Kind,
    PredicateInfo,
    Verdict,
    cardinality,
    default_adjudicator,
)
from graph_db.search import Searcher
from graph_db.settings import GraphSettings
from graph_db.text import (
    NAME_MAX,
    check_ns,
    check_text,
    entity_key,
    is_question,
    predicate_key,
    sentences,
    terms,
    to_json,
)
from graph_db.vecpack import LEGACY, pack

log = logging.getLogger(__name__)
_seq = itertools.count()
_DIGITS = re.compile(r"\d+")
#: how far a cosine taken on float16 vectors (the read index's) may be from the one taken
#: on the stored float32 ones: 2**-11 relative in each component, 5e-4 for unit vectors
F16_MARGIN = 2e-3


def new_id() -> str:
    return str(uuid.uuid4())


def _seq_value() -> int:
    """Insertion order: the tie-break of episodes with the same event time, and of
    memories tied in a search (``lexicon.best``)."""
    return time.time_ns() + next(_seq)


def fact_text(subject: str, predicate: str, obj: str) -> str:
    """How a triplet reads as text (what is embedded and full-text indexed)."""
    return f"{subject} {predicate.replace('_', ' ')} {obj}"


def _said(speaker: str | None, text: str) -> str:
    """A turn as it is embedded and indexed: who said it, then what ("Ann: I moved")."""
    return f"{speaker}: {text}" if speaker else text


def _words(text: str) -> int:
    return len(text.split())


class Prepared(NamedTuple):
    """Episodes validated and embedded, ready for one write transaction."""

    ns: str
    items: list[EpisodeIn]
    texts: list[str]
    vectors: np.ndarray
    views: list[dict[str, np.ndarray]]  # per item: sentence views, in-context vector


@dataclass
class Plan:
    """How a batch of facts is reconciled: each new fact's ``Outcome``, each predicate's
    cardinality, what the conflicts taught (written with the batch), and the current
    facts it was planned against (re-checked inside the write transaction)."""

    outcomes: dict[int, Outcome]
    kinds: dict[str, Kind]
    lessons: dict[str, PredicateInfo]
    current: dict[int, list[dict[str, Any]]]  # their rows, by new fact


def _current_by_index(rows: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(r["i"], []).append(r)
    return out


def _seen(current: dict[int, list[dict[str, Any]]]) -> dict[int, list[tuple[str, str]]]:
    """The current facts as a plan depends on them: ids and objects (their vectors embed the
    subject, predicate and object: the same key and object, the same vector)."""
    return {i: sorted((r["id"], r["object"]) for r in rows) for i, rows in current.items() if rows}


@dataclass
class Outcome:
    """What reconciling one new fact decided: the current facts it replaces (id, reason),
    or the fact that stays current instead of it (and until when it held, if ever)."""

    supersedes: list[tuple[str, str]] = field(default_factory=list)
    rejected_by: tuple[str, str] | None = None
    valid_to: float | None = None


def _stored_view(row: dict[str, Any]) -> FactView:
    return FactView(
        row["id"],
        row["subject"] or "",
        "",
        row["object"] or "",
        float(row["confidence"] if row["confidence"] is not None else 0.5),
        float(row["importance"] if row["importance"] is not None else 0.5),
        float(row["valid_from"] or 0.0),
    )


def _guarded(adjudicator: Adjudicator, fallback: Adjudicator) -> Adjudicator:
    """An adjudicator (an LLM, maybe) that fails or answers nonsense is replaced by the
    default rule for that conflict: a bad verdict must never block or corrupt a write."""

    def judge(conflict: Conflict) -> Verdict:
        try:
            verdict = adjudicator(conflict)
        except Exception as e:
            log.warning("adjudicator failed (%s); the default rule decides", e)
            return fallback(conflict)
        if not isinstance(verdict, Verdict) or verdict.winner not in ("new", "old", "both"):
            log.warning("adjudicator answered %r; the default rule decides", verdict)
            return fallback(conflict)
        return verdict

    return judge


class MemoryWriter:
    """Writes memories of one store; ``on_write`` hears of each committed batch."""

    def __init__(
        self,
        backend: GraphBackend,
        embedder: Embedder,
        searcher: Searcher,
        settings: GraphSettings,
        on_write: Callable[..., None],
    ) -> None:
        self.backend = backend
        self.embedder = embedder
        self.searcher = searcher
        self.settings = settings
        self.on_write = on_write
        self.cardinality = Cardinality(backend)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return check_vectors(self.embedder.embed(texts), self.embedder.dim, len(texts))

    def reindex(self, text: str, speaker: str | None = None) -> dict[str, Any]:
        """Index fields of a memory whose text changed, as the write path makes them (a
        turn is indexed with its speaker); the sentence and context views are dropped."""
        said = _said(speaker, text)
        vec = self.embed([said])[0]
        return {
            "terms": terms(said, self.settings.stem_language),
            "embedding": vec.tolist(),
            "vecs": pack(vec),
            **dict.fromkeys(LEGACY),
        }

    def _nearest_stored(
        self, tx: Tx, ns: str, vectors: np.ndarray
    ) -> list[list[tuple[str, float]]]:
        """The m most similar stored episodes and facts of each vector: asked before the
        batch is created in ``tx``, as engines differ in whether an index sees what the
        open transaction wrote (ArcadeDB's does, Neo4j's does not)."""
        m = self.settings.assoc_neighbours
        existing: list[list[tuple[str, float]]] = [[] for _ in range(len(vectors))]
        if m == 0 or len(vectors) == 0:
            return existing
        for label in ("Episode", "Fact"):
            found = self.searcher.nearest(tx.run, ns, label, vectors, m)
            for i, hits in enumerate(found):
                existing[i].extend((h.id, h.score) for h in hits)
        return existing

    def _neighbour_rows(
        self,
        ids: Sequence[str],
        vectors: np.ndarray,
        existing: list[list[tuple[str, float]]],
        now: float,
    ) -> list[dict[str, Any]]:
        """Initial ASSOC edges, GAT-style: attention over the m most similar memories.

        Candidates are the stored episodes and facts (``existing``, from _nearest_stored)
        plus the earlier items of the same batch, as if written one by one;
        w_j = w0 * softmax(sim_j / tau) over the kept ones.
        """
        m = self.settings.assoc_neighbours
        if m == 0 or len(ids) == 0:
            return []
        batch_sims = vectors @ vectors.T
        rows = []
        for i, node_id in enumerate(ids):
            cands = dict(existing[i])
            cands.update((ids[j], float(batch_sims[i, j])) for j in range(i))
            cands.pop(node_id, None)
            top = sorted(cands.items(), key=lambda kv: kv[1], reverse=True)[:m]
            weights = attention_weights(
                [s for _, s in top],
                self.settings.assoc_w0,
                self.settings.assoc_temperature,
                self.settings.assoc_min_similarity,
            )
            for (other, _), w in zip(top, weights, strict=True):
                if w <= 0:
                    continue
                a, b = sorted((node_id, other))
                props = {"w": w, "w_at": now, "fired_at": now, "fired_count": 0}
                props["permanent"] = False
                rows.append({"a": a, "b": b, "props": {**props, "created_at": now}})
        return rows

    def entity_names(self, names: Iterable[str]) -> dict[str, tuple[str, np.ndarray]]:
        """Normalised key -> (display name, vector) for surface names, embedded before the
        transaction opens (names repeat, so the query cache answers most)."""
        by_key: dict[str, str] = {}
        for name in names:
            key = entity_key(name)
            if key and key not in by_key:
                by_key[key] = name.strip()
        vecs = self.embed(list(by_key.values())) if by_key else []
        return {k: (d, v) for (k, d), v in zip(by_key.items(), vecs, strict=True)}

    def _resolve_entities(
        self, tx: Tx, ns: str, named: dict[str, tuple[str, np.ndarray]], now: float
    ) -> dict[str, str]:
        """Entity id per normalised key: exact match on the key, then embedding match.

        New entities and new aliases are written in the caller's transaction.
        """
        if not named:
            return {}
        keys = list(named)
        ids = {r["name"]: r["id"] for r in tx.run("entities_by_name", ns=ns, names=keys)}
        unknown = [k for k in keys if k not in ids]
        if not unknown:
            return ids
        vecs = np.stack([named[k][1] for k in unknown])
        near = self.searcher.nearest(tx.run, ns, "Entity", vecs, 1)
        new_rows, aliases = [], []
        for key, vec, hits in zip(unknown, vecs, near, strict=True):
            if hits and hits[0].score >= self.settings.entity_threshold:
                ids[key] = hits[0].id
                aliases.append({"id": ids[key], "alias": key})
                continue
            ids[key] = new_id()
            new_rows.append(
                {
                    "id": ids[key],
                    "name": key,
                    "display": named[key][0],
                    "aliases": [],
                    "embedding": vec.tolist(),
                    "created_at": now,
                    "last_access": now,
                    "access_count": 0,
                    "importance": 0.5,
                    "permanent": False,
                }
            )
        if new_rows:
            tx.run("entities_create", ns=ns, rows=new_rows)
        if aliases:
            tx.run("entity_alias_add", ns=ns, rows=aliases, now=now)
        return ids

    def prepare_episodes(
        self,
        ns: str,
        episodes: Sequence[EpisodeIn | Mapping[str, Any] | str],
        before: Sequence[EpisodeIn] | None = None,
    ) -> Prepared:
        """Validate and embed before any write transaction (may run ahead in a thread).

        ``before`` are turns written just earlier (the previous ingest batch): the first
        turn of a session in this batch takes its context from them; when None, from
        the latest stored turn of that session.
        """
        ns = check_ns(ns)
        items = [self._coerce(EpisodeIn, e) for e in episodes]
        limit = self.settings.max_text_chars
        texts = [check_text(e.text, "episode text", limit) for e in items]
        for e in items:  # every field checked before the model sees any of it
            if e.speaker is not None:
                check_text(e.speaker, "speaker", NAME_MAX)
            check_text(e.session_id, "session id", NAME_MAX)
            for name in e.entities:
                check_text(name, "entity name", NAME_MAX)
        said = [_said(e.speaker, t) for e, t in zip(items, texts, strict=True)]
        vectors = self.embed(said) if texts else np.zeros((0, self.embedder.dim))
        views: list[dict[str, np.ndarray]] = [{} for _ in items]
        if self.settings.episode_views and items:
            views = self._views(items, texts, said, vectors, before, ns)
        return Prepared(ns, items, texts, vectors, views)

    def _views(
        self,
        items: list[EpisodeIn],
        texts: list[str],
        said: list[str],
        vectors: np.ndarray,
        before: Sequence[EpisodeIn] | None,
        ns: str,
    ) -> list[dict[str, np.ndarray]]:
        """Extra vectors of a turn: one per sentence (if more than one) and the turn with
        the one before it in its session (answers read better next to their question),
        embedded, or derived from the two turns' vectors (``episode_context_view``)."""
        last: dict[str, str] = {}
        if before is None:
            sessions = sorted({e.session_id for e in items})
            for r in self.backend.read("session_last", ns=ns, sessions=sessions):
                if r["text"] is not None:
                    last[r["session_id"]] = _said(r["speaker"], r["text"])
        else:
            for e in before:
                last[e.session_id] = _said(e.speaker, e.text)
        derive = self.settings.episode_context_view == "derive"
        to_embed: list[str] = []
        plan: list[tuple[int, str, int]] = []  # (item, kind, how many texts)
        pairs: list[tuple[int, str]] = []  # derived: (item, the turn before it)
        order = sorted(range(len(items)), key=lambda i: (to_epoch(items[i].ts) or 0.0, i))
        for i in order:
            parts = sentences(texts[i])
            if len(parts) > 1:
                to_embed += [_said(items[i].speaker, p) for p in parts]
                plan.append((i, "views", len(parts)))
            prev = last.get(items[i].session_id)
            if prev is not None and derive:
                pairs.append((i, prev))
            elif prev is not None:
                to_embed.append(f"{prev}\n{said[i]}")
                plan.append((i, "ctx_embedding", 1))
            last[items[i].session_id] = said[i]
        out: list[dict[str, np.ndarray]] = [{} for _ in items]
        if pairs:
            derived = self._derived_context(pairs, said, vectors)
            for (i, _), ctx in zip(pairs, derived, strict=True):
                out[i]["ctx_embedding"] = ctx
        if not to_embed:
            return out
        vecs = self.embed(to_embed)
        at = 0
        for i, kind, n in plan:
            block = vecs[at : at + n]
            at += n
            out[i][kind] = block if kind == "views" else block[0]
        return out

    def _derived_context(
        self, pairs: list[tuple[int, str]], said: list[str], vectors: np.ndarray
    ) -> np.ndarray:
        """The in-context view without a model call: the two turns' vectors weighted by
        their lengths in words, as mean pooling over the joined text weighs their tokens
        (cosine ~0.95 to the embedded view on LoCoMo). A turn before from an earlier batch
        or the store is embedded once (the query cache usually has it)."""
        own = {text: vectors[i] for i, text in enumerate(said)}
        missing = sorted({prev for _, prev in pairs if prev not in own})
        if missing:
            own |= dict(zip(missing, self.embed(missing), strict=True))
        mixed = np.stack(
            [_words(said[i]) * vectors[i] + _words(prev) * own[prev] for i, prev in pairs]
        )
        return (mixed / np.linalg.norm(mixed, axis=1, keepdims=True)).astype(np.float32)

    def write_episodes(self, prepared: Prepared) -> list[str]:
        ns, items, texts, vectors, views = prepared
        if not items:
            return []
        now = clock.now()
        rows, mentions = [], []
        for e, text, vec, view in zip(items, texts, vectors, views, strict=True):
            meta = to_json(e.metadata, "episode metadata") if e.metadata else None
            ts = to_epoch(e.ts) if e.ts is not None else now
            rows.append(
                {
                    "id": e.id or new_id(),
                    "text": text,
                    "terms": terms(_said(e.speaker, text), self.settings.stem_language),
                    "asks": is_question(text),
                    "speaker": e.speaker,
                    "session_id": check_text(e.session_id, "session_id", 512),
                    "ts": ts,
                    "seq": _seq_value(),
                    "embedding": vec.tolist(),
                    "vecs": pack(vec, view.get("views"), view.get("ctx_embedding")),
                    "created_at": now,
                    "last_access": now,
                    "access_count": 0,
                    "importance": e.salience,
                    "salience": e.salience,
                    "permanent": e.permanent,
                    "metadata": meta,
                }
            )
            names = [*e.entities, *([e.speaker] if e.speaker else [])]
            mentions.append([(n, "speaker" if n == e.speaker else "mention") for n in names])
        ids = [r["id"] for r in rows]
        if len(set(ids)) != len(ids):
            raise InvalidInputError("episode ids in one batch must be unique")
        named = self.entity_names(n for ms in mentions for n, _ in ms)

        def work(tx: Tx) -> None:
            tx.run("namespace_touch", ns=ns, now=now)
            sessions = sorted({r["session_id"] for r in rows})
            timeline = tx.run("session_timeline", ns=ns, sessions=sessions)
            nearest = self._nearest_stored(tx, ns, vectors)
            tx.run("episodes_create", ns=ns, rows=rows)
            unlink, link = [], []  # every session's at once (a batch spans a dozen)
            for sid in sessions:
                old = [
                    (t["id"], t["ts"], t["seq"] or 0) for t in timeline if t["session_id"] == sid
                ]
                new = [(r["id"], r["ts"], r["seq"]) for r in rows if r["session_id"] == sid]
                gone, made = chain_diff(old, new)
                unlink += gone
                link += made
            if unlink:
                tx.run("unlink_next", ns=ns, rows=[{"a": a, "b": b} for a, b in unlink])
            if link:
                tx.run(
                    "link_next",
                    ns=ns,
                    rows=[{"a": a, "b": b, "props": {"created_at": now}} for a, b in link],
                )
            entity_ids = self._resolve_entities(tx, ns, named, now)
            mention_rows = [
                {"a": ep_id, "b": entity_ids[key], "props": {"role": role, "created_at": now}}
                for ep_id, ms in zip(ids, mentions, strict=True)
                for name, role in ms
                if (key := entity_key(name)) in entity_ids
            ]
            if mention_rows:
                tx.run("link_mentions", ns=ns, rows=mention_rows)
            assoc = self._neighbour_rows(ids, vectors, nearest, now)
            if assoc:
                tx.run("link_assoc", ns=ns, rows=assoc)

        self.backend.write_tx(work)
        self.on_write(ns, Episode=len(rows))
        return ids

    def write_facts(
        self,
        ns: str,
        facts: Sequence[FactIn | Mapping[str, Any]],
        adjudicator: Adjudicator | None = None,
    ) -> list[FactWrite]:
        """Facts in one transaction (see ``LiquidGraph.add_facts``)."""
        ns = check_ns(ns)
        items = [self._coerce(FactIn, f) for f in facts]
        if not items:
            return []
        limit = self.settings.max_text_chars
        now = clock.now()
        metas = [to_json(f.metadata, "fact metadata") if f.metadata else None for f in items]
        prepared = []
        for f in items:
            subject = check_text(f.subject, "fact subject", limit).strip()
            obj = check_text(f.object, "fact object", limit).strip()
            predicate = predicate_key(check_text(f.predicate, "fact predicate", limit))
            if not predicate:
                raise InvalidInputError(
                    f"predicate {f.predicate!r} has no words; use e.g. 'lives_in'"
                )
            prepared.append((f, subject, predicate, obj, fact_text(subject, predicate, obj)))
        vectors = self.embed([p[4] for p in prepared])
        sources = sorted({f.source_episode_id for f in items if f.source_episode_id})
        named = self.entity_names(name for p in prepared for name in (p[1], p[3]))
        keys = [
            {"i": i, "subject_key": entity_key(p[1]), "predicate": p[2]}
            for i, p in enumerate(prepared)
        ]
        fids = [f.id or new_id() for f in items]
        born = [to_epoch(f.valid_from) if f.valid_from is not None else now for f in items]
        fallback = default_adjudicator(self.settings.reconcile_margin)
        judge = fallback if adjudicator is None else _guarded(adjudicator, fallback)
        asks = adjudicator is not None
        predicates, objects = [p[2] for p in prepared], [p[3] for p in prepared]

        def plan_with(run: Callable[..., list[dict[str, Any]]]) -> Plan:
            index = self.searcher.index
            rows = run("facts_current_by_key", ns=ns, keys=keys, with_embedding=index is None)
            current = _current_by_index(rows)
            if index is not None:
                self._current_vectors(index, run, ns, current, vectors, objects)
            infos = self.cardinality.infos(run, ns, predicates)
            return self._reconcile(prepared, vectors, keys, fids, born, judge, asks, current, infos)

        # planned before the transaction (an adjudicator may be an LLM: slow), re-checked in it
        planned = plan_with(self.backend.read)

        def work(tx: Tx) -> list[FactWrite]:
            tx.run("namespace_touch", ns=ns, now=now)  # the namespace's writers queue here
            # their ids and objects suffice (not their vectors again). Another writer changed
            # these facts since planning: plan again on what is now current, inside the
            # transaction (two writers of one single-valued predicate must leave one current
            # value, one SUPERSEDES chain)
            rows = tx.run("facts_current_by_key", ns=ns, keys=keys, with_embedding=False)
            same = _seen(_current_by_index(rows)) == _seen(planned.current)
            plan = planned if same else plan_with(tx.run)
            current = plan.current
            exact = [plan.kinds[p] == "functional" for p in predicates]
            lessons = Cardinality.lessons_rows(ns, plan.lessons)
            if lessons:
                tx.run("predicates_learn", ns=ns, rows=lessons)
            closing, superseding = [], []
            if sources:
                found = {r["values"][0] for r in tx.run(
                    "memory_get", ns=ns, ids=sources, fields=["id"]
                ) if r["label"] == "Episode"}  # fmt: skip
                missing = [s for s in sources if s not in found]
                if missing:
                    raise NotFoundError(
                        f"source episode(s) {missing} not found in namespace {ns!r}; "
                        "write the episode first and pass its id"
                    )
            results: list[FactWrite] = []
            create, reinforce, derived, about = [], [], [], []
            created: list[int] = []  # the index in the batch of each row of ``create``
            created_keys: dict[tuple[str, str], list[tuple[str, np.ndarray, str]]] = {}
            for i, ((f, subject, predicate, obj, text), vec) in enumerate(
                zip(prepared, vectors, strict=True)
            ):
                key = (entity_key(subject), predicate)
                dup = self._duplicate_of(
                    vec, obj, current.get(i, []), created_keys.get(key, []), exact[i]
                )
                if dup is not None:
                    reinforce.append({"id": dup, "confidence": f.confidence})
                    results.append(FactWrite(id=dup, action="merged"))
                    if f.source_episode_id:
                        derived.append({"a": dup, "b": f.source_episode_id})
                    continue
                fid = fids[i]
                outcome = plan.outcomes.get(i, Outcome())
                if outcome.rejected_by is None:
                    created_keys.setdefault(key, []).append((fid, vec, obj))
                created.append(i)
                create.append(
                    {
                        "id": fid,
                        "subject": subject,
                        "subject_key": key[0],
                        "predicate": predicate,
                        "object": obj,
                        "text": text,
                        "terms": terms(text, self.settings.stem_language),
                        "embedding": vec.tolist(),
                        "vecs": pack(vec),
                        "confidence": f.confidence,
                        "valid_from": born[i],
                        "valid_to": outcome.valid_to,
                        "seq": _seq_value(),
                        "created_at": now,
                        "last_access": now,
                        "access_count": 0,
                        "importance": f.salience,
                        "salience": f.salience,
                        "permanent": False,
                        "source_episode_id": f.source_episode_id,
                        "metadata": metas[i],
                    }
                )
                if outcome.rejected_by is not None:
                    winner, reason = outcome.rejected_by
                    superseding.append(
                        {"a": winner, "b": fid, "props": {"at": now, "reason": reason}}
                    )
                    results.append(FactWrite(id=fid, action="rejected", reason=reason))
                else:
                    for old, reason in outcome.supersedes:
                        closing.append({"id": old, "at": born[i]})
                        superseding.append(
                            {"a": fid, "b": old, "props": {"at": now, "reason": reason}}
                        )
                    olds = [old for old, _ in outcome.supersedes]
                    results.append(FactWrite(id=fid, action="created", supersedes=olds))
                if f.source_episode_id:
                    derived.append({"a": fid, "b": f.source_episode_id})
                about.append((fid, subject, "subject"))
                about.append((fid, obj, "object"))
            if create:
                nearest = self._nearest_stored(tx, ns, vectors[created])
                tx.run("facts_create", ns=ns, rows=create)
            if closing:
                tx.run("facts_close", ns=ns, rows=closing)
            if superseding:
                tx.run("link_supersedes", ns=ns, rows=superseding)
            if reinforce:
                tx.run("fact_reinforce", ns=ns, rows=reinforce, now=now, boost=0.1)
            if derived:
                for d in derived:
                    d["props"] = {"created_at": now}
                tx.run("link_derived_from", ns=ns, rows=derived)
            needed = {entity_key(name) for _, name, _ in about}
            entity_ids = self._resolve_entities(
                tx, ns, {k: v for k, v in named.items() if k in needed}, now
            )
            about_rows = [
                {"a": fid, "b": entity_ids[key], "props": {"role": role, "created_at": now}}
                for fid, name, role in about
                if (key := entity_key(name)) in entity_ids
            ]
            if about_rows:
                tx.run("link_about", ns=ns, rows=about_rows)
            if create:
                new_ids = [c["id"] for c in create]
                assoc = self._neighbour_rows(new_ids, vectors[created], nearest, now)
                if assoc:
                    tx.run("link_assoc", ns=ns, rows=assoc)
            return results

        results = self.backend.write_tx(work)
        self.on_write(ns, Fact=sum(r.action == "created" for r in results))
        return results

    def _reconcile(
        self,
        prepared: list[tuple[FactIn, str, str, str, str]],
        vectors: np.ndarray,
        keys: list[dict[str, Any]],
        fids: list[str],
        born: list[float],
        judge: Adjudicator,
        asks: bool,
        stored: dict[int, list[dict[str, Any]]],
        infos: dict[str, PredicateInfo],
    ) -> Plan:
        """Conflicts of the new facts with the ``stored`` current ones (and, in time order,
        with each other). ``asks``: a custom adjudicator is given; predicates of unknown
        cardinality are then put to it, and its verdicts teach the namespace."""
        infos = {name: replace(info) for name, info in infos.items()}  # learned as we go
        lessons: dict[str, PredicateInfo] = {}
        live: dict[tuple[str, str], list[tuple[FactView, np.ndarray, str]]] = {}
        outcomes: dict[int, Outcome] = {}
        kinds: dict[str, Kind] = {}
        for i in sorted(range(len(prepared)), key=lambda j: (born[j], j)):
            f, subject, predicate, obj, _ = prepared[i]
            here = live.setdefault((keys[i]["subject_key"], predicate), [
                (_stored_view(r), np.asarray(r["embedding"], dtype=np.float32), r["object"] or "")
                for r in stored.get(i, [])
            ])  # fmt: skip
            kind = kinds[predicate] = cardinality(predicate, infos[predicate])
            same = [(v.id, e, o) for v, e, o in here]
            if self._duplicate_of(vectors[i], obj, [], same, kind == "functional"):
                continue  # merged on write, not a conflict
            new = FactView(fids[i], subject, predicate, obj, f.confidence, f.salience, born[i])
            outcome = outcomes[i] = Outcome()
            if kind == "functional" or (kind == "unknown" and asks):
                for cur, _, _ in list(here):
                    verdict = judge(Conflict(new=new, current=cur))
                    if kind == "unknown":
                        for table in (infos, lessons):
                            info = table.setdefault(predicate, PredicateInfo())
                            if verdict.winner == "both":
                                info.kept_both += 1
                            else:
                                info.replaced += 1
                    if verdict.winner == "old":
                        outcome.rejected_by = (cur.id or "", verdict.reason)
                        outcome.valid_to = max(born[i], cur.valid_from)
                        outcome.supersedes = []
                        break
                    if verdict.winner == "new":
                        outcome.supersedes.append((cur.id or "", verdict.reason))
            if outcome.rejected_by is None:
                gone = {old for old, _ in outcome.supersedes}
                here[:] = [t for t in here if t[0].id not in gone]
                here.append((new, vectors[i], obj))
        for predicate in infos:  # every predicate of the batch, merged ones included
            kinds.setdefault(predicate, cardinality(predicate, infos[predicate]))
        return Plan(outcomes, kinds, lessons, stored)

    def _current_vectors(
        self,
        index: ReadIndex,
        run: Callable[..., list[dict[str, Any]]],
        ns: str,
        current: dict[int, list[dict[str, Any]]],
        vectors: np.ndarray,
        objects: list[str],
    ) -> None:
        """Give each current fact its vector (``embedding``) for ``_duplicate_of`` from the
        read index, not over Bolt: a subject such as the user holds thousands of current
        facts of one predicate, and every batch with a new one read all their vectors. Held
        as float16, a vector is off by at most ``F16_MARGIN`` in cosine: one clearly under
        ``dup_threshold`` for every new fact of its key (``objects``: theirs), or whose
        object's numbers differ, keeps it; those that may reach it, and those not held, are
        read as stored, so merges are decided on the same vectors as without the index."""
        ids = list(dict.fromkeys(r["id"] for rows in current.values() for r in rows))
        if not ids:
            return
        held = index.own_vectors(run, ns, ids)
        floor = self.settings.dup_threshold - F16_MARGIN
        stored = {mid for mid in ids if mid not in held}
        for i, rows in current.items():
            digits = _DIGITS.findall(objects[i])
            near = [
                r["id"] for r in rows
                if r["id"] in held and _DIGITS.findall(r["object"] or "") == digits
            ]  # fmt: skip
            if near:
                sims = np.stack([held[mid] for mid in near]) @ vectors[i]
                stored.update(mid for mid, sim in zip(near, sims, strict=True) if sim >= floor)
        exact: dict[str, Any] = {}
        if stored:
            read = run("memory_get", ns=ns, ids=sorted(stored), fields=["id", "embedding"])
            exact = {r["values"][0]: r["values"][1] for r in read}
        zero = np.zeros(len(vectors[0]), dtype=np.float32)  # gone since: like no other text
        for rows in current.values():
            for r in rows:
                mid = r["id"]
                r["embedding"] = exact.get(mid) if mid in stored else held[mid]
                if r["embedding"] is None:
                    r["embedding"] = zero

    def _duplicate_of(
        self,
        vec: np.ndarray,
        obj: str,
        stored: list[dict[str, Any]],
        batch: list[tuple[str, np.ndarray, str]],
        exact: bool = False,
    ) -> str | None:
        """The current fact (same subject and predicate) this one repeats, if any: the same
        object, or a text at least ``dup_threshold`` similar whose object has the same
        numbers ("PIN is 4711" never merges into "PIN is 1234": that is a conflict).
        ``exact`` (single-valued predicates): only the same object; "Rylal Arena" and
        "Rylil Arena" read alike but are a change of value, for reconcile to judge."""
        okey, digits = entity_key(obj), _DIGITS.findall(obj)
        best, best_sim = None, self.settings.dup_threshold
        candidates = [(r["id"], r["embedding"], r["object"] or "") for r in stored] + batch
        for fid, other, other_obj in candidates:
            if entity_key(other_obj) == okey:
                return fid
            if exact or _DIGITS.findall(other_obj) != digits:
                continue
            sim = float(np.dot(vec, np.asarray(other, dtype=np.float32)))
            if sim >= best_sim:
                best, best_sim = fid, sim
        return best

    @staticmethod
    def _coerce(model: type, value: Any) -> Any:
        if isinstance(value, model):
            return value
        if isinstance(value, str) and model is EpisodeIn:
            return EpisodeIn(text=value)
        if isinstance(value, Mapping):
            try:
                return model(**value)
            except ValidationError as e:
                raise InvalidInputError.of(model.__name__, e) from None
        raise InvalidInputError(f"expected {model.__name__} or a mapping, got {type(value)}")
