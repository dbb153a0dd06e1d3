"""``LLMs``: one ``ChatOpenAI`` per role on one OpenAI-compatible endpoint, and the
accounting (calls, tokens, seconds per role) that ``bench_agent`` reports.

Structured output asks the server for JSON that fits a schema (``response_format`` with a
JSON schema: vLLM's structured outputs and llama.cpp's grammar both honour it) and then
validates it here, because a remote endpoint may not.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel

from mags_langgraph.llm.parse import ParseError, parse_json, strip_thinking
from mags_langgraph.settings import AgentSettings, Role
from mags_langgraph.steps import Steps, arun, invoke, run

T = TypeVar("T", bound=BaseModel)
FALLBACK_RESPOND_TOKENS = 80
# an answer cut short (token limit, content filter): openai's client raises for these
CUT_OFF = (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError)


class StructuredError(ValueError):
    """The model's output stayed invalid after the retries (the last reason is kept)."""


@dataclass
class Usage:
    """What the model calls of one role cost so far."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    failures: int = 0


@dataclass
class Accounting:
    """Per-role usage, safe to update from the graph's threads."""

    roles: dict[str, Usage] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, role: str, message: AIMessage | None, seconds: float, failed=False) -> None:
        meta = getattr(message, "usage_metadata", None) or {}
        with self._lock:
            u = self.roles.setdefault(role, Usage())
            u.calls += 1
            u.seconds += seconds
            u.prompt_tokens += int(meta.get("input_tokens", 0))
            u.completion_tokens += int(meta.get("output_tokens", 0))
            u.failures += int(failed)

    def snapshot(self) -> dict[str, Usage]:
        with self._lock:
            return {r: Usage(**vars(u)) for r, u in self.roles.items()}

    def totals(self) -> Counter:
        return self.sum(self.snapshot())

    @staticmethod
    def sum(roles: dict[str, Usage]) -> Counter:
        """calls, tokens, seconds, failures over the roles of a snapshot."""
        out: Counter = Counter()
        for u in roles.values():
            out.update(vars(u))
        return out


class LLMs:
    """The models of the memory loop, by role.

    ``LLMs(settings)`` connects to ``MAGS_LLM_BASE_URL``, else OpenAI when an API key is
    set, else starts the local llama.cpp server; ``LLMs(models={"respond": chat, ...})``
    takes any LangChain chat models (tests use fake ones), with ``default`` for the rest.
    """

    def __init__(
        self,
        settings: AgentSettings | None = None,
        *,
        models: dict[str, BaseChatModel] | None = None,
        models_dir: Path | None = None,
        adapters_dir: Path | None = None,
        notice: Callable[[str], Any] = print,
    ) -> None:
        self.settings = settings or AgentSettings()
        self.usage = Accounting()
        self._given = dict(models or {})
        self._built: dict[str, BaseChatModel] = {}
        self._models_dir = models_dir
        self._adapters_dir = adapters_dir
        self._notice = notice
        self._lock = threading.Lock()
        self.local = None  # the LocalServer, when one serves the roles

    # -- models ------------------------------------------------------------------------
    def model(self, role: Role) -> BaseChatModel:
        """The chat model serving ``role``."""
        if role in self._given:
            return self._given[role]
        if "default" in self._given:
            return self._given["default"]
        with self._lock:
            if role not in self._built:
                self._built[role] = self._chat_openai(role)
            return self._built[role]

    def _chat_openai(self, role: Role) -> BaseChatModel:
        from langchain_openai import ChatOpenAI

        s = self.settings
        key = s.llm_api_key.get_secret_value() if s.llm_api_key else None
        base_url, model = s.llm_base_url, s.model_for(role)
        extra: dict[str, Any] = {}
        if base_url is None and key is None:  # nothing configured: the embedded server
            from graph_db import GraphSettings
            from mags_langgraph.llm.adapters import adapters_folder
            from mags_langgraph.llm.local import LocalServer

            home = GraphSettings().home
            models_dir = self._models_dir or home / "models"
            adapters_dir = adapters_folder(s, home, self._adapters_dir)
            self.local = LocalServer.shared(s, models_dir, adapters_dir, self._notice)
            base_url, model = self.local.base_url, f"mags-{role}"  # llama.cpp ignores it
            if self.local.adapters:  # the role's adapter on (if it has one), the others off
                extra["extra_body"] = {"lora": self.local.lora_for(role)}
        return ChatOpenAI(
            model=model,
            base_url=base_url,
            api_key=key or "not-needed",
            temperature=s.llm_temperature,
            timeout=s.llm_timeout_s,
            max_retries=1,
            stream_usage=True,
            **extra,
        )

    def adapted(self, role: Role) -> bool:
        """True when the local server runs a trained adapter for ``role``."""
        return bool(self.local and role in self.local.adapters)

    @property
    def fallback(self) -> bool:
        """True when the tiny fallback model serves (answers are poor: say so). Starts
        the local server when it is the one that will serve."""
        if self._given:
            return False
        s = self.settings
        if self.local is None and s.llm_base_url is None and s.llm_api_key is None:
            self.model("respond")
        return bool(self.local and self.local.fallback)

    # -- calls (written once as steps: mags_langgraph.steps runs them sync or async) -----
    def complete_steps(self, role: Role, messages: Sequence[BaseMessage], **kw: Any) -> Steps[str]:
        """The model's text answer (thinking stripped)."""
        started = time.perf_counter()
        msg = yield from invoke(self.model(role), list(messages), max_tokens=self._max(role), **kw)
        self.usage.add(role, msg, time.perf_counter() - started)
        return strip_thinking(_text(msg))

    def structured_steps(
        self,
        role: Role,
        messages: Sequence[BaseMessage],
        schema: type[T],
        retries: int = 1,
        json_schema: dict[str, Any] | None = None,
    ) -> Steps[T]:
        """A validated ``schema`` instance; on invalid output the model is told why and
        asked again (``retries`` times), then ``StructuredError``. ``json_schema``, if given,
        is what the server is asked for instead of ``schema``'s own (a narrower one)."""
        messages = list(messages)
        for attempt in range(retries + 1):
            started = time.perf_counter()
            try:
                kw = self._json_kwargs(role, schema, json_schema)
                msg = yield from invoke(self.model(role), messages, **kw)
            except CUT_OFF as e:  # the token limit or a filter stopped it: invalid output
                msg = _cut_off(e)
            result = self._checked(role, msg, started, schema, messages, attempt == retries)
            if result is not None:
                return result
        raise AssertionError("unreachable")

    def complete(self, role: Role, messages: Sequence[BaseMessage], **kw: Any) -> str:
        return run(self.complete_steps(role, messages, **kw))

    async def acomplete(self, role: Role, messages: Sequence[BaseMessage], **kw: Any) -> str:
        return await arun(self.complete_steps(role, messages, **kw))

    def structured(
        self, role: Role, messages: Sequence[BaseMessage], schema: type[T], retries: int = 1
    ) -> T:
        return run(self.structured_steps(role, messages, schema, retries))

    async def astructured(
        self, role: Role, messages: Sequence[BaseMessage], schema: type[T], retries: int = 1
    ) -> T:
        return await arun(self.structured_steps(role, messages, schema, retries))

    def _checked(
        self, role: Role, msg: Any, started: float, schema: type[T], messages: list, last: bool
    ) -> T | None:
        """Parse one answer and account for it; invalid: raise on the last attempt, else
        append the answer and the reason to ``messages`` for the retry and return None."""
        try:
            result = parse_json(_text(msg), schema)
        except ParseError as e:
            self.usage.add(role, msg, time.perf_counter() - started, failed=True)
            if last:
                raise StructuredError(str(e)) from e
            messages += [msg, HumanMessage(_fix_request(e))]
            return None
        self.usage.add(role, msg, time.perf_counter() - started)
        return result

    def _max(self, role: Role) -> int:
        s = self.settings
        if role != "respond":
            return s.structured_max_tokens
        if self.local is not None and self.local.fallback:  # it rambles: keep answers short
            return min(s.respond_max_tokens, FALLBACK_RESPOND_TOKENS)
        return s.respond_max_tokens

    def _json_kwargs(
        self, role: Role, schema: type[BaseModel], json_schema: dict[str, Any] | None
    ) -> dict[str, Any]:
        if role in self._given or "default" in self._given:
            return {}  # a caller's model (fake, or bound its own way)
        sent = json_schema or schema.model_json_schema()
        fmt = {"name": schema.__name__, "schema": sent, "strict": False}
        return {
            "max_tokens": self._max(role),
            "response_format": {"type": "json_schema", "json_schema": fmt},
        }


def _cut_off(error: Exception) -> AIMessage:
    """The answer an endpoint stopped early, as a message to parse (and reject) and account."""
    completion = getattr(error, "completion", None)
    choice = completion.choices[0].message.content if completion and completion.choices else ""
    usage = getattr(completion, "usage", None)
    meta = None
    if usage is not None:
        meta = {
            "input_tokens": usage.prompt_tokens,
            "output_tokens": usage.completion_tokens,
            "total_tokens": usage.total_tokens,
        }
    return AIMessage(choice or "", usage_metadata=meta)


def _text(msg: Any) -> str:
    content = getattr(msg, "content", msg)
    if isinstance(content, list):  # content blocks
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return content or ""


def _fix_request(error: Exception) -> str:
    return (
        f"That output was invalid ({str(error)[:300]}). Answer again with only the JSON "
        "object, exactly as the schema says, short."
    )
