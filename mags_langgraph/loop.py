"""``MemoryLoop``: what one conversational turn does with memory, written once for every
front end (the LangGraph nodes, the middleware, the tools, LlamaIndex, the classic
memory, the chat CLI; next the REST API and the MCP server).

    turn = loop.before("maya", "I moved to Leeds", thread=[...])  # route, recall, store
    answer = loop.respond(turn, messages)                         # or the caller's model
    report = loop.after(turn, answer)    # answer stored, used memories reinforced,
                                         # facts extracted, written and reconciled

Async first: ``abefore``, ``arespond``, ``aafter``, ``aturn``; the sync twins run the same
steps (``mags_langgraph.steps``). Errors, once for all: a missing or bad user is an
``InvalidInputError``; a failing router, recall role or recall falls back (the rules, the
message, no memories); invalid engram output leaves the turn stored as an episode
(``Extraction.failed``); facts the graph refuses are reported (``TurnReport.write_error``);
a graph that cannot store the message raises, so nothing is lost silently.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Literal

import numpy as np
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from graph_db import (
    Adjudicator,
    Conflict,
    FactWrite,
    InvalidInputError,
    LiquidGraph,
    MagsError,
    Memory,
    Recalled,
    UnknownNamespaceError,
    Verdict,
    check_label,
    check_text,
    clock,
    is_question,
    split_text,
)
from mags_langgraph import prompts, rules
from mags_langgraph.llm import LLMs
from mags_langgraph.schemas import (
    Adjudication,
    Engram,
    RecallPlan,
    Route,
    Triplet,
    grounded_engram_schema,
)
from mags_langgraph.settings import AgentSettings
from mags_langgraph.steps import Steps, arun, call, run

log = logging.getLogger(__name__)
_CITATION = re.compile(r"\[(\d{1,2})\]")
_SELF = {"i", "me", "my", "myself", "user", "the user", "you"}
ASSISTANT = "assistant"
ENGRAM_FACTS = 6  # current facts shown to the engram role (its training data shows 0-8)
PLAN_HISTORY = 4  # the thread's last turns shown to the recall role
ANSWER_SALIENCE = 0.3  # the assistant's words matter less than the user's
Said = tuple[str, str]  # (speaker, text): a turn of the thread
SAVE = Route(recall=False, write=True)  # remember: the text is stored and its facts written


def check_user(user: object) -> str:
    """A user id, as the memory namespace of its conversations: required (a default would
    pool everyone who forgot it), and one namespace label (graph_db's rule: no "/")."""
    if not isinstance(user, str) or not user.strip():
        raise InvalidInputError(
            "MAGS memory needs a user: pass user_id (config {'configurable': {'user_id': ...}}, "
            "the state's 'user', a runtime context with user_id, or user_id=...)"
        )
    return check_label(user, "user id")


class Extraction(BaseModel):
    """The facts of a turn and how they were found (``failed``: invalid model output
    after the retries; the turn is then stored as an episode only)."""

    facts: list[Triplet] = Field(default_factory=list)
    source: Literal["llm", "rules", "both", "none"] = "none"
    failed: bool = False
    dropped: int = 0  # triplets that validated but were implausible


def _joined(patterns: Extraction, by_model: Extraction) -> Extraction:
    """The patterns' facts, then the model's that add something: one whose predicate or
    object a pattern fact already has is left out (the patterns' canonical predicate is what
    supersedes the value a change replaces; the model's synonym of it would not)."""
    taken = {x for f in patterns.facts for x in (f.predicate, f.object.lower())}
    extra = [f for f in by_model.facts if not {f.predicate, f.object.lower()} & taken]
    dropped = patterns.dropped + by_model.dropped + len(by_model.facts) - len(extra)
    return Extraction(
        facts=[*patterns.facts, *extra], source="both", failed=by_model.failed, dropped=dropped
    )


class TurnContext(BaseModel):
    """What ``before`` did, for ``respond`` and ``after``: an adapter keeps it between the
    two (graph state, a middleware's private state) as plain data (``model_dump``)."""

    user: str
    message: str
    session: str = "default"
    history: list[Said] = Field(default_factory=list)  # the thread before the message
    route: Route
    memories: list[Recalled] = Field(default_factory=list)
    episode_id: str | None = None  # the stored message; None: nothing was stored
    stages_ms: dict[str, float] = Field(default_factory=dict)


class TurnReport(BaseModel):
    """What ``after`` did."""

    answer_id: str | None = None
    used: list[str] = Field(default_factory=list)  # memories the answer used (reinforced)
    extraction: Extraction = Field(default_factory=Extraction)
    writes: list[FactWrite] = Field(default_factory=list)
    write_error: str | None = None  # the graph refused the facts; the turn is stored
    stages_ms: dict[str, float] = Field(default_factory=dict)


class TurnResult(BaseModel):
    """A whole turn (``turn``/``aturn``): the answer is None when the model failed."""

    context: TurnContext
    answer: str | None
    report: TurnReport
    error: str | None = None


@contextmanager
def _timed(stages: dict[str, float], name: str) -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        stages[name] = stages.get(name, 0.0) + (time.perf_counter() - started) * 1000


class MemoryLoop:
    """The memory of a turn over one ``LiquidGraph`` and one set of ``LLMs``."""

    def __init__(
        self,
        graph: LiquidGraph,
        llms: LLMs | None = None,
        settings: AgentSettings | None = None,
    ) -> None:
        self.graph = graph
        self.settings = settings or (llms.settings if llms else AgentSettings())
        self.llms = llms or LLMs(self.settings)
        self.engram_failures = 0

    # -- the turn ------------------------------------------------------------------------
    def before(self, user: str, message: str, **kw) -> TurnContext:
        """Route, recall, then store the message (see ``_before`` for the options)."""
        return run(self._before(user, message, **kw))

    async def abefore(self, user: str, message: str, **kw) -> TurnContext:
        return await arun(self._before(user, message, **kw))

    def respond(self, turn: TurnContext, messages: Sequence[BaseMessage]) -> str:
        """The respond role's answer to the thread's ``messages``, with the turn's memories."""
        return run(self._respond(turn, messages))

    async def arespond(self, turn: TurnContext, messages: Sequence[BaseMessage]) -> str:
        return await arun(self._respond(turn, messages))

    def after(self, turn: TurnContext, answer: str | None = None) -> TurnReport:
        """Store the answer, reinforce what it used, write the message's facts."""
        return run(self._after(turn, answer))

    async def aafter(self, turn: TurnContext, answer: str | None = None) -> TurnReport:
        return await arun(self._after(turn, answer))

    def turn(self, user: str, message: str, **kw) -> TurnResult:
        """``before``, ``respond`` (to the thread plus the message), ``after``."""
        return run(self._turn(user, message, **kw))

    async def aturn(self, user: str, message: str, **kw) -> TurnResult:
        return await arun(self._turn(user, message, **kw))

    def remember(self, user: str, text: str, *, session: str = "tool") -> TurnResult:
        """Store ``text`` as the user's turn and write its facts: the one path of every
        remember tool (LangChain's, the MCP server's). No recall, no answer."""
        return run(self._remember(user, text, session))

    async def aremember(self, user: str, text: str, *, session: str = "tool") -> TurnResult:
        return await arun(self._remember(user, text, session))

    def _remember(self, user: str, text: str, session: str) -> Steps[TurnResult]:
        """Empty or too long text is refused before anything is stored: a tool call chooses
        its text, so it can split it (a chat turn, answered already, is stored in parts).
        What became of the facts is in the report (``write_error``, ``extraction``)."""
        user = check_user(user)
        text = check_text(text, "text", self.graph.settings.max_text_chars)
        context = yield from self._before(user, text, session=session, recall=False, route=SAVE)
        report = yield from self._after(context, None)
        return TurnResult(context=context, answer=None, report=report)

    def _before(
        self,
        user: str,
        message: str,
        *,
        thread: Sequence[Said] = (),
        session: str = "default",
        recall: bool = True,
        store: bool = True,
        route: Route | None = None,
        speaker: str | None = None,
    ) -> Steps[TurnContext]:
        """``thread``: the turns before the message, (speaker, text), for the recall role;
        ``recall=False``: no recall; ``store=False``: nothing written (a read-only turn,
        ``after`` then writes nothing either); ``route``: given, not asked for;
        ``speaker``: who said it, if not the user (an answer without its question). The
        message is stored after the recall (it is not its own memory) and before any
        answer (a failing model loses nothing)."""
        user = check_user(user)
        message = str(message or "")
        limit = self.graph.settings.max_text_chars  # a longer message is stored in parts
        stages: dict[str, float] = {}
        with _timed(stages, "route"):
            route = route or (yield from self._route(user, message))
        memories: list[Recalled] = []
        if recall and route.recall and message.strip():
            with _timed(stages, "recall"):
                queries = yield from self._queries(user, message[:limit], thread)
                try:
                    memories = yield from self._recall(user, queries, route)
                except MagsError as e:  # answer without memories rather than not at all
                    log.warning("recall failed (%s); the turn goes on without memories", e)
        episode_id = None
        if store and message.strip():
            turn = {"speaker": speaker or user, "session_id": session, "ts": clock.now()}
            if speaker == ASSISTANT:
                turn["salience"] = ANSWER_SALIENCE
            with _timed(stages, "store_turn"):
                episode_id = yield from self._store(user, message, turn)
        return TurnContext(
            user=user, message=message, session=session, history=list(thread), route=route,
            memories=memories, episode_id=episode_id, stages_ms=stages,
        )  # fmt: skip

    def _store(self, user: str, text: str, fields: dict) -> Steps[str]:
        """Store ``text`` as one turn, or, longer than MAGS_MAX_TEXT_CHARS, as consecutive
        parts of one session in one transaction (never refused after the model answered).
        Returns the first part's id."""
        parts = split_text(text, self.graph.settings.max_text_chars)
        if len(parts) > 1:
            log.warning("a turn of %d characters is stored in %d parts (MAGS_MAX_TEXT_CHARS)",
                        len(text), len(parts))  # fmt: skip
        ids = yield from call(self.graph.add_episodes, user, [{"text": p, **fields} for p in parts])
        return ids[0]

    def _respond(self, turn: TurnContext, messages: Sequence[BaseMessage]) -> Steps[str]:
        prompt = self.respond_prompt(turn.user, turn.memories, messages)
        return (yield from self.llms.complete_steps("respond", prompt))

    def _after(self, turn: TurnContext, answer: str | None) -> Steps[TurnReport]:
        """Nothing when ``before`` stored nothing. Reinforcement is best effort (a failure
        is logged); the facts are extracted only when the route says the message states
        some."""
        report = TurnReport()
        if turn.episode_id is None:
            return report
        stages, user = report.stages_ms, turn.user
        if answer and answer.strip():
            said = {"speaker": ASSISTANT, "session_id": turn.session, "ts": clock.now(),
                    "salience": ANSWER_SALIENCE}  # fmt: skip
            with _timed(stages, "store_answer"):
                report.answer_id = yield from self._store(user, answer, said)
            with _timed(stages, "learn"):
                try:
                    report.used = yield from call(self.learn, user, answer, turn.memories)
                except MagsError as e:
                    log.warning("the used memories were not reinforced (%s)", e)
        if turn.route.write:
            with _timed(stages, "extract"):
                report.extraction = yield from self._extract(user, turn.message)
            if report.extraction.facts:
                with _timed(stages, "write_facts"):
                    try:
                        report.writes = yield from call(
                            self.write_facts, user, report.extraction.facts, turn.episode_id
                        )
                    except MagsError as e:  # the graph refused them: the turn is stored
                        log.warning("facts not written (%s); the turn stays an episode", e)
                        report.write_error = str(e)
        return report

    def _turn(
        self, user: str, message: str, *, messages: Sequence[BaseMessage] = (), **kw
    ) -> Steps[TurnResult]:
        """``messages``: the thread so far (LangChain messages), for the respond role."""
        context = yield from self._before(user, message, **kw)
        answer, error = None, None
        try:
            with _timed(context.stages_ms, "respond"):
                answer = yield from self._respond(context, [*messages, HumanMessage(message)])
        except Exception as e:  # the model is down or refused: the message is stored
            log.warning("respond failed (%s: %s); the turn is stored without an answer",
                        type(e).__name__, e)  # fmt: skip
            error = f"{type(e).__name__}: {e}"
        report = yield from self._after(context, answer)
        return TurnResult(context=context, answer=answer, report=report, error=error)

    # -- route ---------------------------------------------------------------------------
    def route(self, user: str, message: str) -> Route:
        return run(self._route(user, message))

    def _route(self, user: str, message: str) -> Steps[Route]:
        if self.settings.router == "rules":
            return rules.route(message)
        prompt = [SystemMessage(prompts.ROUTE.format(user=user)), HumanMessage(message)]
        try:
            return (yield from self.llms.structured_steps("router", prompt, Route))
        except Exception as e:  # invalid or unreachable: the rules decide
            log.warning("router failed (%s): rules decide", e)
            return rules.route(message)

    # -- recall --------------------------------------------------------------------------
    def recall(
        self, user: str, query: str | Sequence[str], route: Route | None = None
    ) -> list[Recalled]:
        """The memories for ``query`` (one text or several; none when the route says so or
        the user is new)."""
        return run(self._recall(check_user(user), query, route))

    async def arecall(
        self, user: str, query: str | Sequence[str], route: Route | None = None
    ) -> list[Recalled]:
        return await arun(self._recall(check_user(user), query, route))

    def _queries(self, user: str, message: str, thread: Sequence[Said]) -> Steps[list[str]]:
        """What to search for: the message, or (``recall_queries="llm"``) also the recall
        role's queries for it (pronouns resolved from the thread's last turns)."""
        if self.settings.recall_queries != "llm":
            return [message]
        today = datetime.fromtimestamp(clock.now(), UTC).date().isoformat()
        turn = prompts.recall_input(message, date=today, history=thread[-PLAN_HISTORY:])
        prompt = [SystemMessage(prompts.RECALL_PLAN.format(user=user)), HumanMessage(turn)]
        try:
            plan = yield from self.llms.structured_steps("recall", prompt, RecallPlan)
        except Exception as e:  # invalid or unreachable: the message itself is searched
            log.warning("recall role failed (%s): searching the message", e)
            return [message]
        return [message, *plan.queries]  # blank ones fail the schema

    def _recall(
        self, user: str, query: str | Sequence[str], route: Route | None
    ) -> Steps[list[Recalled]]:
        route = route or Route(recall=True, write=True)
        if not route.recall:
            return []
        k = self.settings.recall_k
        own_words = route.blocks == "episodic"  # "what did you tell me": the answers count
        asked = [q for q in ([query] if isinstance(query, str) else query) if q.strip()]
        if route.query and route.query.strip():
            asked.append(route.query)
        if not asked:
            return []
        try:
            hits = yield from call(
                self.graph.recall,
                user,
                asked,
                k=k if own_words else 2 * k,
                blocks=route.blocks,
                asker=user if self.settings.recall_as_asker else None,
            )
        except UnknownNamespaceError:
            return []  # a new user: nothing to recall yet
        if not own_words:  # else past answers and questions crowd out what the user said
            hits = [h for h in hits if h.memory.speaker != ASSISTANT and not asks(h.memory)]
        return hits[:k]

    # -- respond -------------------------------------------------------------------------
    def respond_prompt(
        self, user: str, memories: Sequence[Recalled], history: Sequence[BaseMessage]
    ) -> list[BaseMessage]:
        """System prompt with the numbered memories, then the conversation so far."""
        system = prompts.RESPOND.format(
            user=user,
            today=datetime.fromtimestamp(clock.now(), UTC).strftime("%Y-%m-%d"),
            memories=prompts.memory_lines(memories),
        )
        return [SystemMessage(system), *history]

    def used(self, answer: str, memories: Sequence[Recalled]) -> list[tuple[Recalled, float]]:
        """Which memories the answer used, and how useful each was: cited ``[n]`` -> 1.0;
        else its embedding similarity to the answer when at least ``used_similarity``
        (small models rarely cite)."""
        if not memories or not answer.strip():
            return []
        cited = {int(n) - 1 for n in _CITATION.findall(answer)}
        out = [(m, 1.0) for i, m in enumerate(memories) if i in cited]
        rest = [  # the assistant's own past words resemble any answer: citations only
            m for i, m in enumerate(memories)
            if i not in cited and m.memory.speaker != ASSISTANT
        ]  # fmt: skip
        if rest:
            plain = _CITATION.sub("", answer)
            vecs = self.graph.embedder.embed([plain, *(m.memory.text for m in rest)])
            sims = np.asarray(vecs[1:]) @ np.asarray(vecs[0])
            floor = self.settings.used_similarity
            out += [(m, float(min(1.0, s))) for m, s in zip(rest, sims, strict=True) if s >= floor]
        return out

    def learn(self, ns: str, answer: str, memories: Sequence[Recalled]) -> list[str]:
        """Reinforce the memories the answer used (Hebbian); returns their ids."""
        used = self.used(answer, memories)
        if used:
            self.graph.reinforce(ns, [m for m, _ in used], [u for _, u in used])
        return [m.id for m, _ in used]

    # -- engram --------------------------------------------------------------------------
    def _engram_mode(self) -> Literal["llm", "rules", "both"]:
        mode = self.settings.engram
        if mode != "auto":
            return mode
        if not self.llms.fallback:
            return "llm"
        # the tiny fallback: its adapter names a fact its own way ("home_city" for
        # "lives_in"), which supersedes nothing; the patterns' canonical facts come first
        return "both" if self.llms.adapted("engram") else "rules"

    def current_facts(self, ns: str, message: str) -> list[tuple[str, str, str]]:
        """The few current facts ``message`` may touch (the nearest ones in the semantic
        block), for the engram role: a change then gives the new value only, and a
        restatement nothing."""
        try:
            hits = self.graph.search(ns, message, k=2 * ENGRAM_FACTS, blocks="semantic")
        except UnknownNamespaceError:
            return []  # a new user: nothing known yet
        facts = [h.memory for h in hits if h.memory.current]
        return [(f.subject or "", f.predicate or "", f.object or "") for f in facts][:ENGRAM_FACTS]

    def extract(self, user: str, message: str) -> Extraction:
        """The facts ``message`` states (model or patterns, see ``AgentSettings.engram``).
        ``user`` is the speaker and the namespace whose current facts the model sees."""
        return run(self._extract(user, message))

    async def aextract(self, user: str, message: str) -> Extraction:
        return await arun(self._extract(user, message))

    def _extract(self, user: str, message: str) -> Steps[Extraction]:
        mode = self._engram_mode()
        if mode == "rules":
            return self._patterns(user, message)
        by_model = yield from self._by_model(user, message)
        return by_model if mode == "llm" else _joined(self._patterns(user, message), by_model)

    def _patterns(self, user: str, message: str) -> Extraction:
        return self._checked_facts(user, rules.facts_from(message, user), "rules")

    def _by_model(self, user: str, message: str) -> Steps[Extraction]:
        try:
            facts = yield from call(self.current_facts, user, message)
            today = datetime.fromtimestamp(clock.now(), UTC).date().isoformat()
            turn = prompts.engram_input(message, speaker=user, date=today, facts=facts)
            prompt = [SystemMessage(prompts.ENGRAM.format(user=user)), HumanMessage(turn)]
            retries = self.settings.engram_retries
            names = [user, today, *(x for f in facts for x in (f[0], f[2]))]
            grounded = (
                grounded_engram_schema(message, names) if self.settings.engram_grounded else None
            )
            out = yield from self.llms.structured_steps("engram", prompt, Engram, retries, grounded)
        except Exception as e:  # invalid output, or the model unreachable: turn kept as is
            self.engram_failures += 1
            log.warning("engram failed (%s): the turn is stored as an episode only", e)
            return Extraction(source="llm", failed=True)
        return self._checked_facts(user, out.facts, "llm")

    def _checked_facts(self, user: str, facts: Sequence[Triplet], source: str) -> Extraction:
        """Plausible facts only: "I" becomes the user, no sentence-long subjects or
        predicates, no object that merely repeats the subject, no duplicates."""
        kept: list[Triplet] = []
        seen: set[tuple[str, str, str]] = set()
        for f in facts[: self.settings.max_facts_per_turn]:
            subject = user if f.subject.strip().lower() in _SELF else f.subject.strip()
            predicate = re.sub(r"[^\w]+", "_", f.predicate.strip().lower()).strip("_")
            obj = f.object.strip()
            key = (subject.lower(), predicate, obj.lower())
            plausible = (
                subject
                and predicate
                and obj
                and len(subject.split()) <= 6
                and len(predicate.split("_")) <= 6
                and obj.lower() != subject.lower()
                and key not in seen
            )
            if plausible:
                seen.add(key)
                kept.append(f.model_copy(update={"subject": subject, "predicate": predicate,
                                                 "object": obj}))  # fmt: skip
        return Extraction(facts=kept, source=source, dropped=len(facts) - len(kept))

    # -- reconcile -----------------------------------------------------------------------
    def write_facts(
        self, ns: str, facts: Sequence[Triplet], source_episode_id: str | None
    ) -> list[FactWrite]:
        """Store the facts (one transaction); conflicts go to the adjudicator."""
        if not facts:
            return []
        rows = [{**f.model_dump(), "source_episode_id": source_episode_id} for f in facts]
        return self.graph.add_facts(ns, rows, adjudicator=self.adjudicator())

    def adjudicator(self) -> Adjudicator | None:
        """The reconcile role as the graph's adjudicator (None: the graph's own rule).
        The graph guards it: an error or a nonsense verdict falls back to the rule."""
        mode = self.settings.reconcile
        if mode == "rules" or (mode == "auto" and self.llms.fallback):
            return None

        def adjudicate(c: Conflict) -> Verdict:
            prompt = prompts.ADJUDICATE.format(
                subject=c.new.subject,
                predicate=c.new.predicate,
                current=c.current.object,
                current_date=_day(c.current.valid_from),
                current_conf=c.current.confidence,
                new=c.new.object,
                new_date=_day(c.new.valid_from),
                new_conf=c.new.confidence,
            )
            out = self.llms.structured("reconcile", [HumanMessage(prompt)], Adjudication)
            return Verdict(out.winner, f"adjudicated: {out.reason}"[:200])

        return adjudicate


def asks(memory: Memory) -> bool:
    """A turn that only asks: it holds no answer (graph_db.is_question)."""
    return memory.block == "episodic" and is_question(memory.text)


def _day(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d") if epoch else "unknown"
