"""One trial: replay a workload part with some settings and measure the four terms.

The terms are the research prototype's loss, made measurable without an LLM in the loop:

- prediction loss: the share of probes answered wrong (no evidence in the top k, or an
  earlier answer ranked above the current one);
- churn: what the graph's dynamics added and removed per turn (edges born from co-firing
  in recall and from triadic closure, edges pruned, memories forgotten);
- size: 3 x nodes + edges at the end, per turn;
- unused recall: the share of the k memories recalled that were not evidence (what an
  answer would be handed and not use).

Time passes as the workload says: each step runs at its event time (``graph_db.clock``),
so a turn of month 5 is younger than one of month 1 and decay and forgetting act on a
conversation's months, not on the seconds the replay takes. Maintenance runs every
``maintain_every`` turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from finetune.tune.workload import Episode, Fact, Part, Probe
from graph_db import LiquidGraph, clock
from graph_db.text import entity_key, predicate_key

TERMS = ("prediction", "churn", "size", "unused")


@dataclass
class Terms:
    """A part's (or a split's) measures; ``loss`` weighs them against the defaults' own."""

    probes: int
    correct: int
    hits: int
    fidelity_errors: int
    turns: int
    churn_events: int
    size_units: int
    unused_sum: float

    @property
    def prediction(self) -> float:
        return 1.0 - self.correct / self.probes if self.probes else 0.0

    @property
    def churn(self) -> float:
        return self.churn_events / max(1, self.turns)

    @property
    def size(self) -> float:
        return self.size_units / max(1, self.turns)

    @property
    def unused(self) -> float:
        return self.unused_sum / self.probes if self.probes else 0.0

    @property
    def accuracy(self) -> float:
        return 1.0 - self.prediction

    def __add__(self, other: Terms) -> Terms:
        return Terms(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))

    def summary(self) -> dict[str, Any]:
        return {
            **{t: round(getattr(self, t), 6) for t in TERMS},
            "accuracy": round(self.accuracy, 6),
            "probes": self.probes,
            "fidelity_errors": self.fidelity_errors,
            "turns": self.turns,
        }


def astuple(t: Terms) -> tuple:
    return tuple(asdict(t).values())


@dataclass(frozen=True)
class Weights:
    prediction: float = 1.0
    churn: float = 0.05
    size: float = 0.1
    unused: float = 0.05

    def loss(self, terms: Terms, reference: Terms) -> float:
        """Prediction loss and unused recall as they are (shares); churn and size relative
        to the reference (the defaults on the same parts), so that their weights read as
        "this much accuracy for halving the graph" whatever the workload's scale."""
        return (
            self.prediction * terms.prediction
            + self.churn * _ratio(terms.churn, reference.churn)
            + self.size * _ratio(terms.size, reference.size)
            + self.unused * terms.unused
        )


def _ratio(value: float, reference: float) -> float:
    return value / reference if reference > 0 else float(value > 0)


def replay(
    graph: LiquidGraph, ns: str, part: Part, *, k: int = 10, maintain_every: int = 50
) -> Terms:
    """Write ``part`` into the empty namespace ``ns`` with ``graph``'s settings (a
    ``LiquidGraph.tuned`` view), asking each probe when it comes; ``ns`` is left for the
    caller to forget. Each step runs at its event time (``graph_db.clock``)."""
    run = _Replay(graph, ns, part, k)
    since_maintain = 0
    for event in part.events:
        if isinstance(event, Probe):
            run.ask(event)
            continue
        run.probes_done()
        if isinstance(event, Fact):
            run.write_pending()
            with clock.at(event.ts):
                graph.add_facts(ns, [_fact_in(event, run.prefix)])
            continue
        run.pending.append(event)
        run.last_ts = event.ts
        since_maintain += 1
        if len(run.pending) >= 50:
            run.write_pending()
        if maintain_every and since_maintain >= maintain_every:
            run.maintain()
            since_maintain = 0
    run.write_pending()
    run.probes_done()
    stats = graph.stats(ns)
    nodes = sum(stats["nodes"].values())
    edges = sum(e["count"] for e in stats["edges"].values())
    run.terms.size_units = 3 * nodes + edges
    return run.terms


class _Replay:
    """A replay's state: episodes waiting to be written together, the time it is, and the
    edge count before a run of probes (what their co-firing adds is churn)."""

    def __init__(self, graph: LiquidGraph, ns: str, part: Part, k: int) -> None:
        self.graph, self.ns, self.k = graph, ns, k
        self.terms = Terms(0, 0, 0, 0, part.turns, 0, 0, 0.0)
        self.pending: list[Episode] = []
        self.last_ts = next((e.ts for e in part.events if isinstance(e, Episode)), 0.0)
        self.edges_before_probes: int | None = None
        self.prefix = f"{ns}/"  # ids are unique across namespaces: a trial's copy gets its own
        for predicate in part.single_valued:
            graph.set_cardinality(ns, predicate, True)

    def write_pending(self) -> None:
        if self.pending:
            with clock.at(self.pending[-1].ts):
                self.graph.add_episodes(
                    self.ns, [_episode_in(e, self.prefix) for e in self.pending]
                )
            self.pending.clear()

    def ask(self, probe: Probe) -> None:
        self.write_pending()
        if self.edges_before_probes is None:
            self.edges_before_probes = self._edges()
        with clock.at(self.last_ts):
            hits = self.graph.recall(self.ns, probe.question, k=self.k, blocks=probe.blocks)
        right, faithful, useful = judge(probe, [h.memory for h in hits[: self.k]], self.prefix)
        t = self.terms
        t.probes += 1
        t.hits += right
        t.correct += right and faithful
        t.fidelity_errors += not faithful
        t.unused_sum += 1.0 - useful / len(hits[: self.k]) if hits else 1.0

    def probes_done(self) -> None:
        if self.edges_before_probes is not None:
            self.terms.churn_events += max(0, self._edges() - self.edges_before_probes)
            self.edges_before_probes = None

    def maintain(self) -> None:
        self.write_pending()
        self.graph.flush()
        with clock.at(self.last_ts):
            report = self.graph.maintain(self.ns)
        self.terms.churn_events += report.pruned_edges + report.births + report.forgotten

    def _edges(self) -> int:
        self.graph.flush()
        return sum(e["count"] for e in self.graph.stats(self.ns)["edges"].values())


def _episode_in(e: Episode, prefix: str) -> dict[str, Any]:
    return {
        "id": prefix + e.id,
        "text": e.text,
        "speaker": e.speaker,
        "ts": e.ts,
        "session_id": e.session,
    }


def _fact_in(f: Fact, prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "subject": f.subject,
        "predicate": f.predicate,
        "object": f.object,
        "valid_from": f.ts,
    }
    if f.source:
        out["source_episode_id"] = prefix + f.source
    return out


def judge(probe: Probe, memories: Sequence[Any], prefix: str = "") -> tuple[bool, bool, int]:
    """(a hit in the top k, no earlier answer above it, how many of them were evidence);
    ``prefix``: what the replay put before the workload's episode ids."""
    first: int | None = None
    stale_at: list[int] = []
    shown_superseded = False
    useful = 0
    if probe.blocks == "semantic":
        assert probe.key is not None and probe.truth is not None
        subject, predicate = entity_key(probe.key[0]), predicate_key(probe.key[1])
        truth, earlier = entity_key(probe.truth), {entity_key(v) for v in probe.superseded}
        for rank, m in enumerate(memories):
            if m.block != "semantic":
                continue
            superseded = m.valid_to is not None
            shown_superseded |= superseded
            same_key = (
                entity_key(m.subject or "") == subject
                and predicate_key(m.predicate or "") == predicate
            )
            if not same_key:
                continue
            obj = entity_key(m.object or "")
            if obj == truth and not superseded:
                useful += 1
                first = rank if first is None else first
            elif obj in earlier:
                stale_at.append(rank)
        faithful = not shown_superseded and all(first is not None and r > first for r in stale_at)
        return first is not None, faithful, useful
    for rank, m in enumerate(memories):
        id = m.id.removeprefix(prefix)
        if id in probe.evidence:
            useful += 1
            first = rank if first is None else first
        elif id in probe.stale:
            stale_at.append(rank)
    faithful = all(first is not None and r > first for r in stale_at)
    return first is not None, faithful, useful
