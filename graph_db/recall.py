"""Recall: over-query candidates, choose anchors that cover them, walk out from the anchors.

1. Candidates: the K' nearest memories (vector index) and the K' best full-text hits per
   label and per query.
2. Relevance: each candidate is scored against each query by a dense score (the best of
   its own vector and its per-sentence views, plus its in-context view) and the full-text
   score, both z-normalised over the candidates, plus a length prior (w log(1 + content
   words)) and a boost for a time near a date written in the query
   (``graph_db.grounding``); relevance = exp(score - best), in (0, 1].
3. Anchors: m candidates chosen greedily for relevance and for how well they cover the
   candidate set (facility location, the seeds' "convex hull" idea).
4. Walk: from each anchor over ASSOC (decayed weight), NEXT, DERIVED_FROM and (first
   hop only) shared non-hub entities; activation = anchor relevance x product of edge
   weights, stopping under theta or at max depth.
5. Rank by max(relevance, activation) (x exp(-penalty) for a turn that only asks: it leads
   to an answer but holds none), plus a boost for memories whose speaker the query names
   (or that are the asker's), plus small importance and recency terms; superseded facts are
   hidden unless history or a past view (``as_of``) is asked for, and a turn that stated a
   since-superseded value comes after its correction (``corrections_first``), and turns
   that match the query by the same words come newest first when it asks how things stand
   (``newest_first``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graph_db import clock
from graph_db.adjacency import Adjacency
from graph_db.adjacency import Step as Hop  # (source, target, edge, weight)
from graph_db.backends import GraphBackend
from graph_db.columns import Columns
from graph_db.dynamics import DAY_S, DecayParams
from graph_db.grounding import Grounding, about_now, topic_of
from graph_db.models import MEMORY_FIELDS, Memory, Recalled, Step
from graph_db.read_index import ReadIndex, Stamp
from graph_db.row_table import FLOATS
from graph_db.search import Found, Searcher
from graph_db.settings import GraphSettings
from graph_db.text import fulltext_query, terms
from graph_db.vecpack import unpack_rows

Key = tuple[str, str]  # a fact's (subject, predicate): what a correction is keyed by

_IMPORTANCE, _LAST, _CREATED, _VALID_TO = (
    FLOATS.index(k) for k in ("importance", "last_access", "created_at", "valid_to")
)


@dataclass
class Candidate:
    """A memory where the ranking needs it whole (its first places, the corrections, the
    turns ``newest_first`` draws on), with what recall made of it."""

    id: str
    label: str
    props: dict[str, Any]
    sources: set[str] = field(default_factory=set)
    relevance: float = 0.0
    similarity: float | None = None
    activation: float = 0.0
    path: list[Hop] = field(default_factory=list)  # made ``Step``s for the results only


@dataclass
class _Later:
    """A memory in the ranking not (yet) made a ``Candidate``: its place in the columns
    (``_Ranked``)."""

    id: str
    at: int


@dataclass
class _Found:
    """What the searches found, in columns and in id order (how they were found must not
    break a tie), with each one's full-text score per query and how it was found."""

    cols: Columns
    lexical: np.ndarray  # (memories, queries): the full-text score (0 when not hit)
    sources: list[set[str]]
    sent: dict[str, dict[str, Any]]  # rows the store sent (not held by the read index)

    def take(self, idx: np.ndarray) -> _Found:
        """The memories at ``idx``, in that order."""
        pick = idx.tolist()
        sources = [self.sources[i] for i in pick]
        return _Found(self.cols.take(idx), self.lexical[idx], sources, self.sent)


Texts = dict[tuple[str, int], list[Found]]  # each (label, query)'s full-text hits
#: full-text hits as candidates (found, how) and each one's score per query (0: not hit)
Scored = tuple[list[tuple[Found, str]], dict[str, np.ndarray]]


@dataclass
class Begun:
    """What a recall started before its query was embedded (``Recaller.begin``)."""

    checked: Future[Stamp] | Stamp | None  # the read index's version check (None: no index)
    #: in process: the version searched at, and the full-text hits scored (on its thread)
    text: Future[tuple[Stamp | None, Scored]] | None = None
    #: in the engine: a job each (label, query)
    full: dict[tuple[str, int], Future[list[Found]]] = field(default_factory=dict)

    @property
    def searched(self) -> Stamp | None:
        """The version a held namespace is searched at, checked with the results."""
        return self.checked if isinstance(self.checked, tuple) else None

    def version(self) -> Stamp | None:
        """The version the read index is searched at (None: read by the search itself)."""
        return self.text.result()[0] if self.text is not None else _done(self.checked)

    def hits(self, queries: int) -> Scored:
        """The full-text hits of the ``queries`` searched (none when not searched)."""
        if self.text is not None:
            return self.text.result()[1]
        return _scored({key: job.result() for key, job in self.full.items()}, queries)


def _scored(hits: Texts, queries: int) -> Scored:
    """``hits`` as candidates, and each one's score per query."""
    found: list[tuple[Found, str]] = []
    scores: dict[str, np.ndarray] = {}
    for (_, qi), text in hits.items():
        for f in text:
            found.append((f, "fulltext"))
            scores.setdefault(f.id, np.zeros(queries))[qi] = f.score
    return found, scores


def _done(value: Future[Stamp] | Stamp | None) -> Stamp | None:
    """``value``, or what it comes to once its job is done."""
    return value.result() if isinstance(value, Future) else value


@dataclass
class _Ranked:
    """The candidates, then the memories the walk reached that are not candidates, each
    part in id order, scored in columns; made ``Candidate``s (``Recaller._made``) only where
    the ranking needs them. A recall ranks ~300 candidates and up to ~2,000 walked
    memories: a row dict, a vector dict and an object of each cost more than their scores."""

    cols: Columns  # without vectors: scored already
    sent: dict[str, dict[str, Any]]
    reached: dict[str, tuple[float, list[Hop]]]
    sources: list[set[str]]
    relevance: np.ndarray
    similarity: np.ndarray
    boosts: np.ndarray  # (memories, 4): ``Recaller._boosts``
    activation: np.ndarray = field(default_factory=lambda: np.zeros(0))
    final: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def score(self) -> None:
        """Activation (where the walk reached a memory higher than its relevance) and the
        final score."""
        act = np.array([self.reached.get(mid, (0.0,))[0] for mid in self.cols.ids], np.float64)
        self.activation = np.where(act > self.relevance, act, 0.0)
        self.final = _final(self.relevance, self.activation, self.boosts)

    def origins(self, places: dict[str, int]) -> np.ndarray:
        """The similarity ``min_similarity`` holds each memory to: its own, or that of the
        anchor the walk reached it from (``places``: each candidate's place)."""
        sims = self.similarity.tolist()
        return np.array([
            sims[places[self.reached[mid][1][0][0]]] if a > 0 else sim
            for mid, a, sim in zip(self.cols.ids, self.activation.tolist(), sims, strict=True)
        ], np.float64)  # fmt: skip

    def repeat_key(self, c: _Later, min_words: int) -> Any:
        """``collapse_repeats``' key, in the columns' form of terms (it runs before any
        memory is made a candidate)."""
        i = c.at
        if self.cols.labels[i] != "Episode" or self.cols.words[i] < min_words:
            return None
        return self.cols.terms[i] or None

    def corrections(self, keys: Collection[Key]) -> list[int]:
        """The memories ``corrections_first`` may place: current facts of a subject and
        predicate that changed (``keys``), and the turns that stated them."""
        if not keys:
            return []
        cols = self.cols
        valid_to = cols.floats[:, _VALID_TO]
        facts = [
            i
            for i, fact in enumerate(cols.facts)
            if fact and cols.labels[i] == "Fact" and (np.isnan(valid_to[i]) or not valid_to[i])
            and _subject_predicate(fact[0], fact[1]) in keys
        ]  # fmt: skip
        sources = {cols.facts[i][2] for i in facts}  # type: ignore[index]
        return facts + [i for i, mid in enumerate(cols.ids) if mid in sources]

    def speaker(self, c: Candidate | _Later) -> str | None:
        if isinstance(c, _Later):
            return self.cols.speakers[c.at]
        return c.props.get("speaker")

    def about(self, ranked: list[tuple[float, Candidate | _Later]], words: set[str]) -> list[int]:
        """The turns not made candidates that state something and have every one of
        ``words`` (``newest_first`` may move the newest of them up)."""
        if not words:
            return []
        wanted, cols = self.cols.words_in(words), self.cols
        return [
            c.at
            for _, c in ranked
            if isinstance(c, _Later) and cols.labels[c.at] == "Episode"
            and cols.asks[c.at] != 1 and cols.has_all(c.at, wanted)
        ]  # fmt: skip


def _final(relevance: np.ndarray, activation: np.ndarray, boosts: np.ndarray) -> np.ndarray:
    """max(relevance, activation) x the question penalty, plus the speaker, importance and
    recency boosts (``Recaller._boosts``), summed in that order."""
    final = np.maximum(relevance, activation) * boosts[:, 0] + boosts[:, 1] + boosts[:, 2]
    final += boosts[:, 3]
    return final


@dataclass
class _Stale:
    """The superseded facts among the candidates: the turns they were drawn from, by id,
    with the (subject, predicate) each stated; and the facts' ids by that key."""

    turns: dict[str, set[Key]] = field(default_factory=dict)
    facts: dict[Key, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, cols: Columns, hidden: np.ndarray) -> _Stale:
        """From the hidden (not visible) candidates at ``hidden``."""
        stale = cls()
        valid_to = cols.floats[:, _VALID_TO]
        for i in hidden.tolist():
            fact = cols.facts[i]
            if cols.labels[i] != "Fact" or not fact or np.isnan(valid_to[i]) or not valid_to[i]:
                continue
            key = _subject_predicate(fact[0], fact[1])
            stale.facts.setdefault(key, []).append(cols.ids[i])
            if fact[2]:
                stale.turns.setdefault(fact[2], set()).add(key)
        return stale


@dataclass
class _OldValue:
    """A value a changed (subject, predicate) held, as a turn said before the change
    (``since``) that repeats it has it: every word of ``value``, one of ``shared`` (the
    words of the predicate and subject the current facts have too), and the subject's name
    (``named``; none to look for when the subject is one of the speakers, whom "I" and "you"
    name). "You live in Lisbon" repeats Lisbon of "pat lives_in" in Pat's chat; "Lisbon has
    great food" and "Talorra's die is amber" (for Zorondo's die) repeat nothing."""

    value: set[str]
    shared: set[str]
    named: set[str]
    since: float

    def repeated_by(self, c: Candidate) -> bool:
        if c.label != "Episode" or _ts(c) >= self.since:
            return False
        said = _terms(c)
        return self.value <= said and self.named <= said and not self.shared.isdisjoint(said)


def _made_only(
    ranked: list[tuple[float, Candidate | _Later]],
) -> list[tuple[float, Candidate]]:
    return [(s, c) for s, c in ranked if isinstance(c, Candidate)]


def _or_least(similarity: np.ndarray) -> np.ndarray:
    """Similarities as ``min_similarity`` and the vector mode have held candidates to: a
    memory stored without vectors (similarity 0.0, a zero vector) as less than any."""
    return np.where(similarity == 0.0, -2.0, similarity)


def visible(props: dict[str, Any], as_of: float | None, history: bool) -> bool:
    """Current memories only, or those that existed and held at ``as_of``."""
    valid_to = props.get("valid_to")
    if as_of is None:
        return history or valid_to is None
    # rows carry every key, null where unset: the first one set is when it began
    born = next(
        (props[k] for k in ("valid_from", "ts", "created_at") if props.get(k) is not None), None
    )
    if born is not None and born > as_of:
        return False
    return valid_to is None or valid_to > as_of


class Recaller:
    """Runs recalls for one store (see the module doc)."""

    def __init__(
        self,
        backend: GraphBackend,
        searcher: Searcher,
        settings: GraphSettings,
        pool: ThreadPoolExecutor | None = None,
    ):
        self.backend = backend
        self.searcher = searcher
        self.settings = settings
        self._owns_pool = pool is None
        self._pool = pool or ThreadPoolExecutor(max_workers=4, thread_name_prefix="mags-recall")

    def with_settings(self, settings: GraphSettings) -> Recaller:
        """The same recaller with other settings (its threads shared, not closed by it)."""
        return Recaller(self.backend, self.searcher, settings, self._pool)

    # -- 1. candidates ---------------------------------------------------------------
    def begin(
        self,
        ns: str,
        queries: list[str],
        labels: list[str],
        lexical: bool,
        ahead: bool = True,
        derived: int = 0,
    ) -> Begun:
        """What a recall of ``queries`` can do before their embedding, started now on the
        recall's threads while the caller embeds them: the read index's version check and
        (if ``lexical``) the full-text searches, which need the words only. The last
        ``derived`` queries (name-free) are searched in full text only with
        ``recall_name_free_fulltext``.

        With ``ahead``, a namespace the index holds is searched as held and the check comes
        with the results (the version it was held at: ``_results``); a query a recall fewer
        (on Neo4j each costs the server ~2 ms of CPU, which the recall's own reads wait for).
        The full-text searches take the core the embedding leaves: a query's name-free
        variant (``grounding.name_free``) is mostly one embedded before (the query cache)."""
        index, run, kp = self.searcher.index, self.backend.read, self.settings.recall_candidates
        held = index.held(ns) if index is not None and ahead else None
        if index is None:
            checked: Future[Stamp] | Stamp | None = None
        elif held is not None:
            checked = held
        else:
            checked = self._pool.submit(index.version, run, ns)
        if not lexical:
            return Begun(checked)
        worded = queries
        if derived and not self.settings.recall_name_free_fulltext:
            worded = queries[:-derived]
        if index is not None and self.searcher.fulltext_index is not None:  # in process
            lang = self.settings.stem_language
            words = [fulltext_query(q, lang).split() for q in worded]
            text = self._pool.submit(
                self._fulltext, index, ns, labels, words, checked, len(queries)
            )
            return Begun(checked, text)
        full = {
            (label, qi): self._pool.submit(self.searcher.fulltext, run, ns, label, q, kp, True)
            for label in labels
            for qi, q in enumerate(worded)
        }
        return Begun(checked, full=full)

    def _fulltext(
        self,
        index: ReadIndex,
        ns: str,
        labels: list[str],
        words: list[list[str]],
        checked: Future[Stamp] | Stamp,
        queries: int,
    ) -> tuple[Stamp | None, Scored]:
        """The read index's full-text hits of each list of ``words`` (``begin``; the first
        of the ``queries``), scored, at the version ``checked`` (a job queued before this one
        on the same threads, first in first out: never one that waits for a thread), and
        that version."""
        stamp = _done(checked)
        kp = self.settings.recall_candidates
        text = index.find(self.backend.read, ns, labels, kp, None, words, stamp)[1]
        hits = {
            (label, qi): [Found(mid, label, score) for mid, score in best]
            for label in labels
            for qi, best in enumerate(text[label])
        }
        return stamp, _scored(hits, queries)

    def candidates(
        self, ns: str, queries: list[str], qv: np.ndarray, labels: list[str], begun: Begun
    ) -> _Found:
        """Candidates in columns, from the vector index and the full-text searches ``begun``
        started (``begin``)."""
        run, kp = self.backend.read, self.settings.recall_candidates
        index = self.searcher.index
        found: list[tuple[Found, str]] = []
        jobs = None
        if index is not None:  # in process, here: the version checked, array sums a label
            near, _ = index.find(run, ns, labels, kp, qv, None, begun.version())
            found = [(Found(i, label, c), "vector") for label in labels for q in near[label]
                     for i, c in q]  # fmt: skip
        else:
            jobs = [
                self._pool.submit(self.searcher.nearest, run, ns, label, qv, kp, True)
                for label in labels
            ]
        hits: dict[str, set[str]] = {}
        rows: dict[str, dict[str, Any]] = {}  # what the searches brought along
        if jobs is not None:
            found += [(f, "vector") for job in jobs for per_q in job.result() for f in per_q]
        text, scores = begun.hits(len(queries))
        found += text
        for f, source in found:
            hits.setdefault(f.id, set()).add(source)
            if f.row is not None:
                rows[f.id] = f.row
        cols, sent = self._columns(ns, sorted(hits), rows, qv.shape[1])
        zero = np.zeros(len(queries))
        lexical = np.array([scores.get(mid, zero) for mid in cols.ids], np.float64)
        lexical = lexical.reshape(len(cols), len(queries))
        return _Found(cols, lexical, [hits[mid] for mid in cols.ids], sent)

    def close(self) -> None:
        if self._owns_pool:
            self._pool.shutdown(wait=True)

    def _rows(
        self,
        ns: str,
        ids: list[str],
        vecs: bool | None = None,
        sent: dict[str, dict[str, Any]] | None = None,
    ) -> dict[str, dict[str, Any]]:
        """What recall needs of memories by id, in the order of ``ids`` (those that exist):
        as a search or step sent it (``sent``), else from the read index when it holds
        them, else read (with their packed vectors when asked, by default when there is no
        read index)."""
        index = self.searcher.index
        held = {mid: sent[mid] for mid in ids if mid in sent} if sent else {}
        rest = [mid for mid in ids if mid not in held]
        if index is not None and not vecs and rest:
            held |= index.rows(ns, rest)
            rest = [mid for mid in rest if mid not in held]
        if rest:
            vecs = index is None if vecs is None else vecs
            held |= {r["id"]: r["row"] for r in
                     self.backend.read("recall_rows", ns=ns, ids=rest, vecs=vecs)}  # fmt: skip
        return {mid: held[mid] for mid in ids if mid in held}

    def _columns(
        self, ns: str, ids: list[str], rows: dict[str, dict[str, Any]], dim: int
    ) -> tuple[Columns, dict[str, dict[str, Any]]]:
        """Those of ``ids`` (in id order) that exist, in columns, in id order: from the read
        index when it holds them, else from the ``rows`` the store sent (or reads now, with
        their vectors); and the rows used (the ranking makes candidates of a few)."""
        index = self.searcher.index
        cols, missing = index.columns(ns, ids) if index is not None else (None, ids)
        sent = self._rows(ns, missing, vecs=True, sent=rows)
        stacks = {mid: unpack_rows(r["vecs"], dim) for mid, r in sent.items() if r.get("vecs")}
        more = Columns.of_rows(sent, stacks, dim)
        if cols is None:
            return more, sent
        if len(more):  # written after the index was checked: in id order with the others
            cols = cols.joined(more)
            cols = cols.take(sorted(range(len(cols)), key=cols.ids.__getitem__))
        return cols, sent

    # -- 2. relevance ----------------------------------------------------------------------
    def score(
        self,
        cols: Columns,
        lexical: np.ndarray | None,
        qv: np.ndarray,
        ground: Grounding,
        stats: _ZStats | None = None,
    ) -> tuple[np.ndarray, np.ndarray, _ZStats]:
        """Relevance and similarity of the memories in ``cols`` (``lexical``: their
        full-text scores; None: not searched for); z-statistics come from them unless given
        (walked memories are scored on the candidates' scale)."""
        if not len(cols):
            return np.zeros(0), np.zeros(0), stats or _ZStats.empty(len(qv))
        own, dense = cols.dense(qv, self.settings.recall_context_weight)
        if stats is None:
            stats = _ZStats.of(dense, lexical if lexical is not None else np.zeros_like(dense))
        turn = np.array([label == "Episode" for label in cols.labels], bool)
        relevance = self._relevance(dense, lexical, cols.words, turn, cols.times, ground, stats)
        return relevance, own.max(axis=1), stats

    def _relevance(
        self,
        dense: np.ndarray,
        lex: np.ndarray | None,
        words: np.ndarray,
        turn: np.ndarray,
        times: Callable[[], list[float | None]],
        ground: Grounding,
        stats: _ZStats,
    ) -> np.ndarray:
        """exp(score - best) of memories by their dense and full-text scores (None: not
        hit), content words, whether each is a turn and its time (``times``: read only
        when the query has dates; see the module doc);
        sets ``stats.top``, the best score, when unset."""
        s = self.settings
        z = (dense - stats.dense_mu) / stats.dense_sd
        if lex is None:
            lex = np.zeros_like(dense)
        z += s.recall_lexical_weight * (lex - stats.lex_mu) / stats.lex_sd
        prior = _length_prior(words, turn, s.recall_length_cap)
        z += s.recall_length_prior * prior[:, None]
        when = s.recall_time_weight
        if when and any(ground.dates):  # else every boost is 0
            z += np.array([ground.time_boosts_at(t, when) for t in times()])
        if ground.derived:  # a name-free query finds content; the asked one ranks first
            z[:, -ground.derived :] -= s.recall_name_free_penalty
        best = z.max(axis=1)
        if stats.top is None:
            stats.top = float(best.max())
        return np.exp(np.minimum(0.0, best - stats.top))

    def corrections_first(
        self,
        ns: str,
        ranked: list[tuple[float, Candidate | _Later]],
        stale: _Stale,
        pool: dict[str, Candidate],
        k: int,
    ) -> list[tuple[float, Candidate | _Later]]:
        """``ranked`` where, in the top ``k``, a turn that stated a value since superseded ("I
        live in Lisbon" after "I moved to Porto") comes after its correction: the current
        fact of that subject and predicate, and the turn that stated it, placed just before
        it (a recalled statement that no longer holds is never shown without what holds).
        So does a turn that repeated the old value before the change (the assistant's "You
        live in Lisbon"), though no fact was drawn from it: ``_echoes``. The rest follow in
        their order, for ``newest_first`` to draw on. Past the first 2k of ``ranked``, only
        ids are read (the memories not made candidates)."""
        if not stale.facts or not ranked:
            return ranked
        current: dict[Key, list[Candidate]] = {}
        place = {c.id: i for i, (_, c) in enumerate(ranked)}  # the rank, or after all, by id
        for c in sorted(pool.values(), key=lambda c: (place.get(c.id, len(place)), c.id)):
            if c.label == "Fact" and not c.props.get("valid_to"):
                current.setdefault(_key(c), []).append(c)
        sources = {
            f.props.get("source_episode_id") for key in stale.facts for f in current.get(key, [])
        }
        missing = sorted(sid for sid in sources if sid and sid not in pool)
        superseded = sorted({mid for ids in stale.facts.values() for mid in ids})
        rows = self._rows(ns, missing + superseded)  # one read: the turns, the old facts
        for mid in missing:
            if mid in rows:
                pool[mid] = _candidate(mid, rows[mid], {"correction"})
        echoes = _echoes(stale, current, pool, rows, self.settings.stem_language)
        out: list[tuple[float, Candidate | _Later]] = []
        placed: set[str] = set()
        for score, c in ranked:
            if len(out) >= k:
                break
            if c.id in placed:
                continue
            assert isinstance(c, Candidate), "the first 2k are made candidates"
            keys = stale.turns.get(c.id, set()) | {
                key for key, olds in echoes.items() if any(o.repeated_by(c) for o in olds)
            }
            for key in sorted(keys):
                for fact in current.get(key, []):
                    turn = pool.get(fact.props.get("source_episode_id") or "")
                    for fix in (fact, turn):
                        if fix is not None and fix.id not in placed and len(out) < k:
                            fix.sources.add("correction")
                            out.append((score, fix))
                            placed.add(fix.id)
            if len(out) < k:  # the outdated turn itself, after its correction, if room is left
                out.append((score, c))
                placed.add(c.id)
        return out + [(s, c) for s, c in ranked if c.id not in placed]

    # -- 3. anchors ----------------------------------------------------------------------
    def anchors(self, emb: np.ndarray, rel: np.ndarray, m: int) -> list[int]:
        """Greedy facility location over the candidates' own vectors ``emb`` and their
        relevance ``rel``: each pick adds the most relevance-weighted coverage (max
        similarity of every candidate to the picked set) mixed with its own relevance
        (``facility_location``)."""
        return facility_location(emb, rel, m, self.settings.recall_diversity)

    # -- 4. walk -------------------------------------------------------------------------
    def walk(
        self,
        ns: str,
        anchors: list[tuple[str, float]],
        now: float,
        floor: float = 0.0,
        known: Iterable[str] = (),
    ) -> tuple[dict[str, tuple[float, list[Hop]]], dict[str, dict[str, Any]]]:
        """Spread activation from the anchors (id, relevance): best (activation, path) per
        memory reached,
        and the rows of the memories reached (as ``recall_rows`` gives them) but ``known``
        (none with the read index: it holds them).

        ``floor``: an activation that cannot reach the top k (weights are <= 1, so nothing
        beyond it can either); the walk stops under max(theta, floor) - exact pruning. The
        store (or the read index) weighs the edges and drops the steps under it. At most
        ``walk_max_reached`` memories are kept, those of highest activation (``_most_activated``,
        after each step: what a memory dropped would reach is weaker still).
        """
        s = self.settings
        stop = max(s.walk_threshold, floor)
        best: dict[str, tuple[float, list[Hop]]] = {mid: (rel, []) for mid, rel in anchors}
        frontier = {mid for mid, rel in anchors if rel >= stop}
        rows: dict[str, dict[str, Any]] = {}
        known = set(known)
        in_index = self.searcher.index is not None  # it holds the rows: none are sent
        params = {
            "ns": ns,
            "rows": not in_index,
            "vecs": not in_index,
            "stop": stop,
            "now": now,
            "next_w": s.walk_next_weight,
            "derived_w": s.walk_derived_weight,
            "fanout": s.walk_max_fanout,
            **DecayParams.of(s).as_params(),
        }
        for depth in range(s.walk_depth):
            if not frontier:
                break
            at = [(mid, best[mid][0]) for mid in sorted(frontier)]
            params["known"] = [] if in_index else sorted(known | rows.keys())
            frontier = set()
            hops, sent = self._steps(ns, at, depth == 0, params)
            rows.update(sent)
            reached = best.get
            for hop in hops:  # ~1,000s in a heavy recall: kept lean
                src, dst, _, w = hop
                act = best[src][0] * w
                if act < stop or act <= reached(dst, _UNREACHED)[0]:
                    continue
                best[dst] = (act, [*best[src][1], hop])
                frontier.add(dst)
            if s.walk_max_reached and len(best) > s.walk_max_reached:
                best = _most_activated(best, s.walk_max_reached)
                frontier &= best.keys()
        return best, {mid: row for mid, row in rows.items() if mid in best}

    def _steps(
        self, ns: str, at: list[tuple[str, float]], entities: bool, params: dict[str, Any]
    ) -> tuple[list[Hop], dict[str, dict[str, Any]]]:
        """One walk step from ``at`` (id, activation): (source, reached, edge, weight) over
        the liquid and structural edges, then (``entities``) over shared entities, and the
        rows the engine sent with the memories reached; from the read index when it holds
        ``ns`` (no rows), else from the engine."""
        s, index = self.settings, self.searcher.index
        hops = entities and s.walk_entity_weight > 0
        if index is not None:
            decay, stop = DecayParams(params["decay"], params["hold"]), params["stop"]

            def both(held: Adjacency) -> list[Hop]:
                steps = held.step(at, stop, params["now"], decay, s.walk_next_weight,
                                  s.walk_derived_weight, s.walk_max_fanout)  # fmt: skip
                if hops:
                    steps += [(src, dst, "ENTITY", w) for src, dst, _, w in held.entity_step(
                        at, stop, s.walk_entity_max_degree, s.walk_entity_weight)]  # fmt: skip
                return steps

            walked = index.walked(ns, both)
            if walked is not None:
                return walked, {}
        frontier = [{"id": mid, "act": act} for mid, act in at]
        entity_hops = None
        if hops:  # side by side with the edge step
            entity_hops = self._pool.submit(
                self.backend.read,
                "walk_entities",
                frontier=frontier,
                max_degree=s.walk_entity_max_degree,
                entity_w=s.walk_entity_weight,
                **params,
            )
        found = self.backend.read("walk_edges", frontier=frontier, **params)
        found += [{**r, "edge": "ENTITY"} for r in entity_hops.result()] if entity_hops else []
        sent = {r["id"]: r["row"] for r in found if r["row"] is not None}
        return [(r["source"], r["id"], r["edge"], r["w"]) for r in found], sent

    # -- the whole recall ----------------------------------------------------------------
    def recall(
        self,
        ns: str,
        queries: list[str],
        qv: np.ndarray,
        k: int,
        labels: list[str],
        as_of: float | None,
        history: bool,
        mode: str,
        derived: int = 0,
        asker: str | None = None,
        min_similarity: float | None = None,
        begun: Begun | None = None,
    ) -> tuple[list[Recalled], list[str]]:
        """The top ``k`` memories, and the ids of the anchors (for co-firing). The last
        ``derived`` queries were derived from the others (``grounding.name_free``);
        ``asker``: who asks (``Grounding.of``); ``min_similarity``: the least similarity of a
        memory or of the anchor the walk reached it from; ``begun``: see ``begin`` (a
        namespace searched as held raises ``Moved`` when the store moved on meanwhile: the
        caller recalls again, checked first)."""
        begun = begun or self.begin(ns, queries, labels, mode == "walk", derived=derived)
        searched = begun.searched
        now = clock.now()
        least = -2.0 if min_similarity is None else min_similarity  # cosines are >= -1
        ground = Grounding.of(queries, derived, asker)
        found = self.candidates(ns, queries, qv, labels, begun)
        seen = found.cols.visible(as_of, history)
        keep = found if seen.all() else found.take(np.flatnonzero(seen))
        rel, sim, stats = self.score(keep.cols, keep.lexical, qv, ground)
        if mode == "vector":  # relevance: the similarity
            held = _or_least(sim)
            order = [i for i in np.argsort(-held, kind="stable").tolist() if held[i] >= least]
            made = self._candidates(ns, keep, order[:k], sim)
            return self._results(ns, [(c.relevance, c, False) for c in made], searched), []
        at = self.anchors(keep.cols.own(), rel, self.settings.recall_anchors)
        anchors = [(keep.cols.ids[i], float(rel[i])) for i in at]
        boosts = self._boosts(keep.cols, now, ground)
        # the k-th final score before the walk bounds the one after it from below (a walk
        # only raises scores); by its activation, a walked memory gains at most margin on it
        finals = np.sort(_final(rel, np.zeros_like(rel), boosts)[_or_least(sim) >= least])
        margin = self.settings.rank_importance_weight + self.settings.rank_recency_weight
        if any(ground.names):
            margin += self.settings.recall_speaker_weight
        floor = float(finals[-k]) - margin if len(finals) >= k else 0.0
        # the store sends a row with each walked memory that is not a candidate
        reached, rows = self.walk(ns, anchors, now, floor, known=found.cols.ids)
        ranked = self._ranked(ns, keep, (rel, sim, boosts), found, reached, rows, qv, ground,
                              stats, labels, as_of, history, now)  # fmt: skip
        ranked.score()
        final = ranked.final
        order = np.argsort(-final, kind="stable").tolist()
        if min_similarity is not None:
            origins = ranked.origins({mid: i for i, mid in enumerate(keep.cols.ids)})
            order = [i for i in order if origins[i] >= least]
        ids = ranked.cols.ids
        scored: list[tuple[float, Candidate | _Later]] = [
            (float(final[i]), _Later(ids[i], i)) for i in order
        ]
        asked = queries[: len(queries) - ground.derived]
        now_asked = not history and all(map(about_now, asked))
        if self.settings.recall_collapse_repeats and now_asked:
            cap = self.settings.recall_length_cap or 1
            scored = collapse_repeats(scored, cap, ranked.repeat_key)
        corrections = self.settings.recall_corrections_first and as_of is None and not history
        stale = _Stale.of(found.cols, np.flatnonzero(~seen)) if corrections else _Stale()
        # made candidates: every memory that may reach the top k (a correction can take a
        # place of the first k: twice k), or that the corrections draw on
        later = [c.at for _, c in scored[: 2 * k] if isinstance(c, _Later)]
        later += ranked.corrections(stale.facts.keys())
        pool: dict[str, Candidate] = {}
        made = self._made(ns, scored, ranked, later, pool)
        if corrections:
            made = self.corrections_first(ns, made, stale, pool, k)
        # after the corrections: a newer echo of an outdated value ("You live in Porto")
        # may take an older turn's place in its group, never a place before the correction
        if self.settings.recall_newest_first and now_asked:
            lang = self.settings.stem_language
            said_by = " ".join({ranked.speaker(c) or "" for _, c in made})
            words = {t for q in queries for t in terms(topic_of(q), lang).split()}
            words -= set(terms(said_by, lang).split())
            about = ranked.about(made, words)  # the turns below that newest_first draws on
            made = self._made(ns, made, ranked, about, pool)
            # within a fixed window, not k: the first places must not depend on how many
            # more were asked for (k=25 had moved newer turns from 11-25 into the top 10)
            window = min(k, self.settings.recall_newest_window)
            made = newest_first(_made_only(made), window, words)
        anchor_ids = {mid for mid, _ in anchors}
        top = [(s, c, c.id in anchor_ids) for s, c in _made_only(made)[:k]]
        return self._results(ns, top, searched), [mid for mid, _ in anchors]

    def _ranked(
        self,
        ns: str,
        keep: _Found,
        scores: tuple[np.ndarray, np.ndarray, np.ndarray],
        found: _Found,
        reached: dict[str, tuple[float, list[Hop]]],
        rows: dict[str, dict[str, Any]],
        qv: np.ndarray,
        ground: Grounding,
        stats: _ZStats,
        labels: list[str],
        as_of: float | None,
        history: bool,
        now: float,
    ) -> _Ranked:
        """The candidates ``keep`` with their ``scores`` (relevance, similarity, boosts),
        then the memories the walk reached that were not found (``found``), visible and of
        ``labels``, in id order, scored on the candidates' scale (``stats``)."""
        known = set(found.cols.ids)
        ids = sorted(mid for mid in reached if mid not in known)
        cols, sent = self._columns(ns, ids, rows, qv.shape[1])
        shown = cols.visible(as_of, history) & np.isin(cols.labels, labels)
        if not shown.all():  # (a copy of every vector: a heavy walk reaches ~2,000)
            cols = cols.take(np.flatnonzero(shown))
        rel, sim, _ = self.score(cols, None, qv, ground, stats)
        return _Ranked(
            cols=keep.cols.joined(cols, vectors=False),
            sent=found.sent | sent,
            reached=reached,
            sources=[*keep.sources, *([{"walk"}] * len(cols))],
            relevance=np.concatenate([scores[0], rel]),
            similarity=np.concatenate([scores[1], sim]),
            boosts=np.concatenate([scores[2], self._boosts(cols, now, ground)]),
        )

    def _made(
        self,
        ns: str,
        ranked: list[tuple[float, Candidate | _Later]],
        table: _Ranked,
        at: list[int],
        pool: dict[str, Candidate],
    ) -> list[tuple[float, Candidate | _Later]]:
        """``ranked`` with the memories at ``at`` made candidates (added to ``pool``),
        scored as the columns scored them."""
        todo = sorted({i for i in at if table.cols.ids[i] not in pool})
        if not todo:
            return ranked
        rows = self._rows(ns, [table.cols.ids[i] for i in todo], sent=table.sent)
        for i in todo:
            mid = table.cols.ids[i]
            if mid not in rows:  # deleted meanwhile
                continue
            c = _candidate(mid, rows[mid], table.sources[i])
            c.relevance = float(table.relevance[i])
            c.similarity = float(table.similarity[i])
            if table.activation[i] > 0:
                c.activation, c.path = float(table.activation[i]), table.reached[mid][1]
                c.sources.add("walk")
            pool[mid] = c
        return [(s, pool.get(c.id, c) if isinstance(c, _Later) else c) for s, c in ranked]

    def _candidates(
        self, ns: str, found: _Found, at: list[int], sim: np.ndarray
    ) -> list[Candidate]:
        """The memories of ``found`` at ``at`` made candidates, in that order, with their
        similarity ``sim`` as relevance too (the vector mode)."""
        rows = self._rows(ns, [found.cols.ids[i] for i in at], sent=found.sent)
        out = []
        for i in at:
            mid = found.cols.ids[i]
            if mid in rows:  # (deleted meanwhile)
                c = _candidate(mid, rows[mid], found.sources[i])
                c.relevance = c.similarity = float(sim[i])
                out.append(c)
        return out

    def _boosts(self, cols: Columns, now: float, ground: Grounding) -> np.ndarray:
        """What the final score makes of each memory's relevance or activation: times the
        question penalty (a question leads to its answer, an anchor, but holds none), plus
        the boost when the query names its speaker (or a fact's subject), plus its
        importance and recency (weighted): one row a memory."""
        s = self.settings
        floats = np.where(np.isnan(cols.floats), 0.0, cols.floats)  # unset: None, falsy
        last = floats[:, _LAST]
        last = np.where(last != 0.0, last, floats[:, _CREATED])
        last = np.where(last != 0.0, last, now)
        names = [
            who or (fact[0] if fact else None)
            for who, fact in zip(cols.speakers, cols.facts, strict=True)
        ]
        named = {
            n: s.recall_speaker_weight if ground.names_speaker({"speaker": n}) else 0.0
            for n in set(names)
        }
        boosts = np.empty((len(cols), 4), np.float64)
        boosts[:, 0] = np.where(cols.asks == 1, math.exp(-s.recall_question_penalty), 1.0)
        boosts[:, 1] = [named[n] for n in names]
        boosts[:, 2] = s.rank_importance_weight * floats[:, _IMPORTANCE]
        boosts[:, 3] = s.rank_recency_weight * np.exp(-np.maximum(0.0, now - last) / (30 * DAY_S))
        return boosts

    def _results(
        self, ns: str, ranked: list[tuple[float, Candidate, bool]], searched: Stamp | None = None
    ) -> list[Recalled]:
        """The chosen memories, fetched whole (without vectors), as results; ``searched``:
        the version the read index was searched at as held (no check first), which the
        store's, read with them, must still be (``ReadIndex.still``; else ``Moved``)."""
        ids = [c.id for _, c, _ in ranked]
        index, run = self.searcher.index, self.backend.read
        if searched is None or index is None:
            rows = run("memory_get", ns=ns, ids=ids, fields=MEMORY_FIELDS)
        else:
            read = run("recall_results", ns=ns, ids=ids, fields=MEMORY_FIELDS) if ids else []
            store = (read[0]["epoch"], read[0]["version"]) if read else index.version(run, ns)
            if not index.still(ns, searched, store):
                raise Moved
            rows = [r for r in read if r["values"] is not None]
        memories = {m.id: m for m in (Memory.from_values(r["values"], r["label"]) for r in rows)}
        return [
            Recalled(
                memory=memories[c.id],
                score=score,
                similarity=c.similarity,
                relevance=c.relevance,
                activation=c.activation,
                anchor=anchor,
                path=[Step(source=a, target=b, edge=e, weight=w) for a, b, e, w in c.path],
                sources=sorted(c.sources),
            )
            for score, c, anchor in ranked
            if c.id in memories  # deleted meanwhile
        ]


class Moved(Exception):
    """The store moved past the version a recall searched the read index at, as held."""


@dataclass
class _ZStats:
    """Mean and spread of the candidates' dense and full-text scores, and the best total."""

    dense_mu: np.ndarray
    dense_sd: np.ndarray
    lex_mu: np.ndarray
    lex_sd: np.ndarray
    top: float | None = None

    @classmethod
    def of(cls, dense: np.ndarray, lex: np.ndarray) -> _ZStats:
        return cls(dense.mean(0), dense.std(0) + 1e-6, lex.mean(0), lex.std(0) + 1e-6)

    @classmethod
    def empty(cls, q: int) -> _ZStats:
        zero, one = np.zeros(q), np.ones(q)
        return cls(zero, one, zero, one, 0.0)


#: a memory the walk has not reached: no activation, no path
_UNREACHED: tuple[float, tuple[Hop, ...]] = (0.0, ())
#: candidates whose gains ``facility_location`` computes again at once (one product)
GAIN_BATCH = 32


def _most_activated(
    best: dict[str, tuple[float, list[Hop]]], n: int
) -> dict[str, tuple[float, list[Hop]]]:
    """The ``n`` memories of highest activation (ties: the smaller id), anchors first: each
    one's path comes along, as activation only falls along a path. Found by the cut (the
    activation of the last one kept), not by sorting a heavy walk's ~2,000."""
    anchors = [mid for mid, (_, path) in best.items() if not path]
    walked = [mid for mid, (_, path) in best.items() if path]
    room = max(0, n - len(anchors))
    if len(walked) <= room:
        return best
    act = [best[mid][0] for mid in walked]
    cut = -np.partition(-np.array(act), room - 1)[room - 1] if room else math.inf
    above = [mid for mid, a in zip(walked, act, strict=True) if a > cut]
    tied = sorted(mid for mid, a in zip(walked, act, strict=True) if a == cut)
    return {mid: best[mid] for mid in anchors + above + tied[: room - len(above)]}


def facility_location(emb: np.ndarray, rel: np.ndarray, m: int, div: float) -> list[int]:
    """The ``m`` picks of the greedy facility location (see ``Recaller.anchors``), the
    lowest place first among equal values, computed lazily: a candidate's gain (the
    relevance-weighted coverage it adds) only falls as the picked set grows, so the gain
    it had last bounds the one it has now, and only candidates whose bound could beat the
    best gain known are computed again, ``GAIN_BATCH`` at a time. Every gain is the sum the
    eager greedy would take; it computed all n of them a pick, three passes over the (n, n)
    similarities each (151 recalls of the 100k store, ~300 candidates: 1.9 -> 1.0 ms of CPU
    a recall, the same picks)."""
    n = len(rel)
    if n <= m:
        return np.argsort(-rel, kind="stable").tolist()
    sim = np.clip(emb @ emb.T, 0.0, 1.0).astype(np.float64)
    total = max(rel.sum(), 1e-9)
    own = (1 - div) * rel
    bound = own + div * ((sim @ rel) / total)  # exact while nothing is covered
    covered = np.zeros(n)
    fresh = np.ones(n, bool)  # the bound is the value now (the picked: -inf for good)
    chosen: list[int] = []
    for _ in range(m):
        while not fresh[pick := int(np.argmax(bound))]:
            # the first of equal bounds is the argmax: a stale one is computed, so the pick
            # is the first of the candidates whose value is the best
            stale = np.flatnonzero(~fresh)
            if len(stale) > GAIN_BATCH:
                stale = stale[np.argpartition(-bound[stale], GAIN_BATCH - 1)[:GAIN_BATCH]]
            rows = sim[stale]
            gain = (np.maximum(rows, covered, out=rows) - covered) @ rel
            bound[stale] = own[stale] + div * (gain / total)
            fresh[stale] = True
        chosen.append(pick)
        bound[pick] = -np.inf
        covered = np.maximum(covered, sim[pick])
        fresh[:] = False
        fresh[chosen] = True
    return chosen


def _key(c: Candidate) -> tuple[str, str]:
    return _subject_predicate(c.props.get("subject"), c.props.get("predicate"))


def _subject_predicate(subject: Any, predicate: Any) -> tuple[str, str]:
    """What a correction is keyed by: a fact's subject (any case) and predicate."""
    return (str(subject or "").lower(), str(predicate or ""))


def collapse_repeats(
    scored: list[tuple[float, Any]],
    min_words: int,
    key: Callable[[Any, int], Any],
) -> list[tuple[float, Any]]:
    """``scored`` (best first) with each turn of ``min_words`` content words or more that is
    repeated word for word (the same stored terms) kept once, as its best-scored copy, for
    a query that asks how things stand: the same room described on every visit filled a
    recall's places with one text. The best copy, not the newest, stays: copies differ by
    what came before them (the exit taken into the room), which the in-context view
    scores. Shorter copies stay apart: "go west" said in two rooms is two moves, its sense
    is where it was said (collapsed, TextWorld's "what lies west of X" lost its evidence).
    Asked about the past, copies stay apart: the same words on two days are two events.
    ``key``: what a turn repeats by (its stored terms), None for what never collapses."""
    out: list[tuple[float, Any]] = []
    seen: set[Any] = set()
    for s, c in scored:
        same = key(c, min_words)
        if same:
            if same in seen:
                continue
            seen.add(same)
        out.append((s, c))
    return out


def newest_first(
    scored: list[tuple[float, Candidate]], k: int, query_terms: set[str]
) -> list[tuple[float, Candidate]]:
    """``scored`` (best first) where, among the top ``k``, turns that match the query by the
    same words fill their places newest first: of two turns about "the laptop", the later
    one tells where it is now, whatever the earlier one's length or wording made of its
    score. Which turns are recalled changes in one case only (``_newest_about_all``): the
    newest turn that has every word of the query comes in from below the top k. Turns that
    only ask stay where they are. The caller leaves the speakers' names out of
    ``query_terms``: a turn is indexed with its speaker's name, which says who spoke, not
    what about. Moving only the newest to the group's first place cost LoCoMo less at 5 and
    kept fewer TextWorld updates in order (see the README)."""
    scored = _newest_about_all(scored, k, query_terms)
    groups: dict[frozenset[str], list[int]] = {}
    for i, (_, c) in enumerate(scored[:k]):
        if not _states(c):
            continue
        key = frozenset(query_terms & _terms(c))
        if key:
            groups.setdefault(key, []).append(i)
    out = list(scored)
    for places in groups.values():  # places are in score order already
        newest = sorted(places, key=lambda i: -_ts(scored[i][1]))
        for place, i in zip(places, newest, strict=True):
            out[place] = (scored[place][0], scored[i][1])
    return out


def _newest_about_all(
    scored: list[tuple[float, Candidate]], k: int, query_terms: set[str]
) -> list[tuple[float, Candidate]]:
    """``scored`` with the newest turn that has every query word (below the top ``k``, yet
    newer than every such turn in it) moved up to the place of the best such turn in the top
    k, the rest one place down, when the top k has one: the
    latest "You drop the worm on the ground." tells where the worm is, though three older
    turns about the worm scored higher. A group of every word, not of any: letting in the
    newest turn of any group (sharing one word of a longer query) cost LoCoMo any@10 0.8485 ->
    0.8107, pushing out turns that matched by more."""
    if not query_terms or len(scored) <= k:
        return scored
    about = [i for i, (_, c) in enumerate(scored) if _states(c) and query_terms <= _terms(c)]
    inside = [i for i in about if i < k]
    below = [i for i in about if i >= k]
    if not inside or not below:
        return scored
    newest = max(below, key=lambda i: (_ts(scored[i][1]), -i))
    if _ts(scored[newest][1]) <= max(_ts(scored[i][1]) for i in inside):
        return scored
    first = inside[0]
    return [*scored[:first], scored[newest], *scored[first:newest], *scored[newest + 1 :]]


def _states(c: Candidate) -> bool:
    """A turn that states something (not a fact, not a turn that only asks)."""
    return c.label == "Episode" and not c.props.get("asks")


def _terms(c: Candidate) -> set[str]:
    return _words(c.props)


def _words(row: dict[str, Any]) -> set[str]:
    return set((row.get("terms") or "").split())


def _echoes(
    stale: _Stale,
    current: dict[Key, list[Candidate]],
    pool: dict[str, Candidate],
    rows: dict[str, dict[str, Any]],
    lang: str,
) -> dict[Key, list[_OldValue]]:
    """Per changed (subject, predicate): the values it held, as a turn that repeats one
    has them (``_OldValue``). A value is the words of its superseded fact (its row in
    ``rows``) that the current facts lack ("lisbon" of "pat live lisbon" against "pat live
    porto"); it held until the first current value's turn (or start)."""
    speakers = {str(c.props.get("speaker") or "").lower() for c in pool.values()}
    echoes: dict[Key, list[_OldValue]] = {}
    for key, ids in stale.facts.items():
        now = current.get(key, [])
        if now:
            new = set().union(*map(_terms, now))
            since = min(_since(f, pool) for f in now)
            named = set() if key[0] in speakers else set(terms(key[0], lang).split())
            olds = [_words(rows[mid]) for mid in ids if mid in rows]
            echoes[key] = [_OldValue(w - new, w & new, named, since) for w in olds if w - new]
    return echoes


def _since(fact: Candidate, pool: dict[str, Candidate]) -> float:
    """When a current fact's value began: its turn's time, else its own start."""
    turn = pool.get(fact.props.get("source_episode_id") or "")
    return _ts(turn) if turn is not None else fact.props.get("valid_from") or 0.0


def _ts(c: Candidate) -> float:
    return c.props.get("ts") or 0.0


def _length_prior(words: np.ndarray, turn: np.ndarray, cap: int | None = None) -> np.ndarray:
    """log(1 + content words) of each turn, the words counted up to ``cap``; a fact (a few
    words by construction, as informative as a turn) gets the turns' mean, or 0 when there
    are none."""
    prior = np.log1p(np.minimum(words, cap) if cap else words)
    prior[~turn] = prior[turn].mean() if turn.any() else 0.0
    return prior


def _candidate(mid: str, row: dict[str, Any], sources: set[str]) -> Candidate:
    """A candidate from its recall row (see recall_rows.cypher)."""
    props = dict(row)
    props.pop("vecs", None)
    return Candidate(mid, props["label"], props, set(sources))


def as_queries(query: str | Sequence[str]) -> list[str]:
    """One query or several (sub-queries from a recall model); other values are left to
    ``check_text`` to refuse by name."""
    if isinstance(query, str | bytes | bytearray) or not isinstance(query, list | tuple):
        return [query]  # type: ignore[list-item]
    return list(query)
