"""``MemoryLoop``: what one conversational turn does with memory, for every front end.

route -> recall -> the user's message stored -> respond (rates the memories it used ->
Hebbian reinforcement) -> engram (the answer stored; facts extracted) ->
reconcile (facts written, conflicts adjudicated). The LangGraph nodes, the middleware, the
tools and the CLI all call these methods; each has an ``a``-prefixed async twin that awaits
the model natively and runs the (synchronous) graph calls in a worker thread.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from graph_db import FactWrite, InvalidInputError, LiquidGraph, UnknownNamespaceError
from graph_db.models import Recalled
from graph_db.reconcile import Adjudicator, Conflict, Verdict
from mags_langgraph import prompts, rules
from mags_langgraph.llm import LLMs
from mags_langgraph.schemas import Adjudication, Engram, RecallPlan, Route, Triplet
from mags_langgraph.settings import AgentSettings

log = logging.getLogger(__name__)
_CITATION = re.compile(r"\[(\d{1,2})\]")
_SELF = {"i", "me", "my", "myself", "user", "the user", "you"}
ASSISTANT = "assistant"
ENGRAM_FACTS = 6  # current facts shown to the engram role (its training data shows 0-8)
PLAN_HISTORY = 4  # the thread's last turns shown to the recall role
Said = tuple[str, str]  # (speaker, text): a turn of the thread


def check_user(user: object) -> str:
    """A user id, as the memory namespace of its conversations. Required (a default would
    pool everyone who forgot it), and free of "/" (the store joins namespace labels with
    it: a user "alice/x" would appear inside ("alice",))."""
    if not isinstance(user, str) or not user.strip():
        raise InvalidInputError(
            "MAGS memory needs a user: pass user_id (config {'configurable': {'user_id': ...}}, "
            "the state's 'user', a runtime context with user_id, or user_id=...)"
        )
    if "/" in user:
        raise InvalidInputError(f"a user id may not contain '/': {user!r}")
    return user


@dataclass
class Extraction:
    """The facts of a turn and how they were found (``failed``: invalid model output
    after the retries; the turn is then stored as an episode only)."""

    facts: list[Triplet] = field(default_factory=list)
    source: str = "none"  # llm, rules, none
    failed: bool = False
    dropped: int = 0  # triplets that validated but were implausible


class MemoryLoop:
    """The memory operations of a turn over one ``LiquidGraph`` and one set of ``LLMs``."""

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

    # -- route --------------------------------------------------------------------------
    def route(self, user: str, message: str) -> Route:
        if self.settings.router == "rules":
            return rules.route(message)
        try:
            return self.llms.structured("router", self._route_prompt(user, message), Route)
        except Exception as e:  # invalid or unreachable: the rules decide
            log.warning("router failed (%s): rules decide", e)
            return rules.route(message)

    async def aroute(self, user: str, message: str) -> Route:
        if self.settings.router == "rules":
            return rules.route(message)
        try:
            return await self.llms.astructured("router", self._route_prompt(user, message), Route)
        except Exception as e:
            log.warning("router failed (%s): rules decide", e)
            return rules.route(message)

    @staticmethod
    def _route_prompt(user: str, message: str) -> list[BaseMessage]:
        return [SystemMessage(prompts.ROUTE.format(user=user)), HumanMessage(message)]

    # -- recall -------------------------------------------------------------------------
    def queries(self, user: str, message: str, history: Sequence[Said] = ()) -> list[str]:
        """What to search for: the message, or (``recall_queries="llm"``) also the recall
        role's queries for it (its ``RecallPlan``: pronouns resolved from ``history``, the
        thread's last turns as (speaker, text), one query per thing asked)."""
        if self.settings.recall_queries != "llm":
            return [message]
        try:
            prompt = self._plan_prompt(user, message, history)
            plan = self.llms.structured("recall", prompt, RecallPlan)
        except Exception as e:  # invalid or unreachable: the message itself is searched
            log.warning("recall role failed (%s): searching the message", e)
            return [message]
        return [message, *plan.queries]  # blank ones fail the schema

    async def aqueries(self, user: str, message: str, history: Sequence[Said] = ()) -> list[str]:
        if self.settings.recall_queries != "llm":
            return [message]
        try:
            prompt = self._plan_prompt(user, message, history)
            plan = await self.llms.astructured("recall", prompt, RecallPlan)
        except Exception as e:
            log.warning("recall role failed (%s): searching the message", e)
            return [message]
        return [message, *plan.queries]  # blank ones fail the schema

    @staticmethod
    def _plan_prompt(user: str, message: str, history: Sequence[Said]) -> list[BaseMessage]:
        """The recall role's prompt, as its adapter was trained on (``finetune.prompting``)."""
        today = datetime.now(UTC).date().isoformat()
        turn = prompts.recall_input(message, date=today, history=history[-PLAN_HISTORY:])
        return [SystemMessage(prompts.RECALL_PLAN.format(user=user)), HumanMessage(turn)]

    def recall(
        self,
        ns: str,
        query: str | Sequence[str],
        route: Route | None = None,
    ) -> list[Recalled]:
        """The memories for ``query`` (one text or several; none when the route says so or
        ``ns`` is new)."""
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
            hits = self.graph.recall(ns, asked, k=k if own_words else k + 4, blocks=route.blocks)
        except UnknownNamespaceError:
            return []  # a new user: nothing to recall yet
        if not own_words:  # else the assistant's past answers crowd out what the user said
            hits = [h for h in hits if h.memory.properties.get("speaker") != ASSISTANT]
        return hits[:k]

    async def arecall(
        self,
        ns: str,
        query: str | Sequence[str],
        route: Route | None = None,
    ) -> list[Recalled]:
        return await asyncio.to_thread(self.recall, ns, query, route)

    # -- respond ------------------------------------------------------------------------
    def respond_prompt(
        self, user: str, memories: Sequence[Recalled], history: Sequence[BaseMessage]
    ) -> list[BaseMessage]:
        """System prompt with the numbered memories, then the conversation so far."""
        system = prompts.RESPOND.format(
            user=user,
            today=datetime.now(UTC).strftime("%Y-%m-%d"),
            memories=prompts.memory_lines(memories),
        )
        return [SystemMessage(system), *history]

    def respond(
        self, user: str, memories: Sequence[Recalled], history: Sequence[BaseMessage]
    ) -> str:
        return self.llms.complete("respond", self.respond_prompt(user, memories, history))

    async def arespond(
        self, user: str, memories: Sequence[Recalled], history: Sequence[BaseMessage]
    ) -> str:
        return await self.llms.acomplete("respond", self.respond_prompt(user, memories, history))

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
            if i not in cited and m.memory.properties.get("speaker") != ASSISTANT
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

    async def alearn(self, ns: str, answer: str, memories: Sequence[Recalled]) -> list[str]:
        return await asyncio.to_thread(self.learn, ns, answer, memories)

    # -- engram -------------------------------------------------------------------------
    def store_turn(
        self,
        ns: str,
        user: str,
        message: str,
        answer: str | None = None,
        session: str = "default",
    ) -> list[str]:
        """The raw turn as episodes, in one transaction (the user's message first; the
        answer when given). The graph nodes store the message before the respond model is
        called, and the answer with ``store_answer`` after it. Returns the ids (user's first)."""
        now = time.time()
        turns = [{"text": message, "speaker": user, "session_id": session, "ts": now}]
        if answer:
            turns.append(
                {"text": answer, "speaker": ASSISTANT, "session_id": session,
                 "ts": now + 1e-3, "salience": 0.3}
            )  # fmt: skip
        return self.graph.add_episodes(ns, turns)

    async def astore_turn(self, ns: str, user: str, message: str, answer=None, session="default"):
        return await asyncio.to_thread(self.store_turn, ns, user, message, answer, session)

    def store_answer(self, ns: str, answer: str, session: str = "default") -> str:
        """The assistant's answer as an episode (low salience: the user's words matter more)."""
        return self.graph.add_episodes(
            ns, [{"text": answer, "speaker": ASSISTANT, "session_id": session, "salience": 0.3}]
        )[0]

    async def astore_answer(self, ns: str, answer: str, session: str = "default") -> str:
        return await asyncio.to_thread(self.store_answer, ns, answer, session)

    def _engram_by_model(self) -> bool:
        mode = self.settings.engram
        if mode != "auto":
            return mode == "llm"
        return not self.llms.fallback or self.llms.adapted("engram")

    def current_facts(self, ns: str, message: str) -> list[tuple[str, str, str]]:
        """The few current facts ``message`` may touch (the nearest ones in the semantic
        block), for the engram role: a change then gives the new value only, and a
        restatement nothing."""
        try:
            hits = self.graph.search(ns, message, k=2 * ENGRAM_FACTS, blocks="semantic")
        except UnknownNamespaceError:
            return []  # a new user: nothing known yet
        props = [h.memory.properties for h in hits if h.memory.properties.get("valid_to") is None]
        return [(p["subject"], p["predicate"], p["object"]) for p in props][:ENGRAM_FACTS]

    def _engram_prompt(self, user: str, message: str) -> list[BaseMessage]:
        today = datetime.now(UTC).date().isoformat()
        facts = self.current_facts(user, message)
        turn = prompts.engram_input(message, speaker=user, date=today, facts=facts)
        return [SystemMessage(prompts.ENGRAM.format(user=user)), HumanMessage(turn)]

    def extract(self, user: str, message: str) -> Extraction:
        """The facts ``message`` states (model or patterns, see ``AgentSettings.engram``).
        ``user`` is the speaker and the namespace whose current facts the model sees."""
        if not self._engram_by_model():
            return self._checked_facts(user, rules.facts_from(message, user), "rules")
        try:
            out = self.llms.structured(
                "engram", self._engram_prompt(user, message), Engram, self.settings.engram_retries
            )
        except Exception as e:  # invalid output, or the model unreachable: turn kept as is
            return self._failed(e)
        return self._checked_facts(user, out.facts, "llm")

    async def aextract(self, user: str, message: str) -> Extraction:
        if not self._engram_by_model():
            return self._checked_facts(user, rules.facts_from(message, user), "rules")
        try:
            prompt = await asyncio.to_thread(self._engram_prompt, user, message)
            out = await self.llms.astructured(
                "engram", prompt, Engram, self.settings.engram_retries
            )
        except Exception as e:  # invalid output, or the model unreachable: turn kept as is
            return self._failed(e)
        return self._checked_facts(user, out.facts, "llm")

    def _failed(self, error: Exception) -> Extraction:
        self.engram_failures += 1
        log.warning("engram failed (%s): the turn is stored as an episode only", error)
        return Extraction(source="llm", failed=True)

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

    # -- reconcile ----------------------------------------------------------------------
    def write_facts(
        self, ns: str, facts: Sequence[Triplet], source_episode_id: str | None
    ) -> list[FactWrite]:
        """Store the facts (one transaction); conflicts go to the adjudicator."""
        if not facts:
            return []
        rows = [
            {**f.model_dump(), "source_episode_id": source_episode_id} for f in facts
        ]  # fmt: skip
        return self.graph.add_facts(ns, rows, adjudicator=self.adjudicator())

    async def awrite_facts(self, ns: str, facts, source_episode_id) -> list[FactWrite]:
        return await asyncio.to_thread(self.write_facts, ns, facts, source_episode_id)

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


def _day(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d") if epoch else "unknown"
