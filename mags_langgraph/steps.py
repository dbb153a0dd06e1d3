"""Written once, run sync or async: the memory turn as steps.

A memory operation is a generator that yields what it needs done, a chat model call
(``Invoke``) or a blocking call into the graph or the embedder (``Call``), and is sent the
result back (or has the error thrown in, where its own ``try`` handles it). ``run`` does
each step in the caller's thread; ``arun`` awaits the model (``ainvoke``) and runs the
blocking calls in a worker thread. So each operation has one body, and the sync and
async twins differ only in these two small drivers (LangGraph's store does the same
with its ops and ``batch``/``abatch``).

    def _answer(self, prompt) -> Steps[str]:
        msg = yield from invoke(model, prompt)
        yield from call(graph.add_episodes, ns, [msg.text])
        return msg.text
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage

T = TypeVar("T")


@dataclass(frozen=True)
class Invoke:
    """A chat model call: ``model.invoke(messages, **kwargs)`` or its ``ainvoke``."""

    model: BaseChatModel
    messages: list[BaseMessage]
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Call:
    """A blocking call (the graph, the embedder): here, or in a worker thread."""

    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


Steps = Generator[Invoke | Call, Any, T]


def invoke(model: BaseChatModel, messages: list[BaseMessage], **kwargs: Any) -> Steps[AIMessage]:
    return (yield Invoke(model, list(messages), kwargs))


def call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> Steps[T]:
    return (yield Call(fn, args, kwargs))


def _advance(steps: Steps[T], value: Any, error: Exception | None) -> tuple[bool, Any]:
    """Send the last result (or throw its error) in: (True, the result) when the steps
    are done, else (False, what they need next)."""
    try:
        return False, steps.send(value) if error is None else steps.throw(error)
    except StopIteration as done:
        return True, done.value


def run(steps: Steps[T]) -> T:
    """Drive ``steps`` in this thread."""
    value, error = None, None
    while True:
        done, need = _advance(steps, value, error)
        if done:
            return need
        try:  # an error is thrown into the steps: they handle it or it propagates
            if isinstance(need, Invoke):
                value, error = need.model.invoke(need.messages, **need.kwargs), None
            else:
                value, error = need.fn(*need.args, **need.kwargs), None
        except Exception as e:
            value, error = None, e


async def arun(steps: Steps[T]) -> T:
    """Drive ``steps`` on the event loop: models awaited, blocking calls in a thread."""
    value, error = None, None
    while True:
        done, need = _advance(steps, value, error)
        if done:
            return need
        try:
            if isinstance(need, Invoke):
                value, error = await need.model.ainvoke(need.messages, **need.kwargs), None
            else:
                value, error = await asyncio.to_thread(need.fn, *need.args, **need.kwargs), None
        except Exception as e:
            value, error = None, e
