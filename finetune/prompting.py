"""Records -> the chat messages a role sees: the same system prompts and input format as the
agent at run time (``mags_langgraph.prompts``), so an adapter is trained on what it will read.
"""

from __future__ import annotations

from typing import Any

from finetune.records import EngramExample, RecallExample
from finetune.rewards import reward_columns
from mags_langgraph import prompts

Example = EngramExample | RecallExample


def messages(example: Example) -> list[dict[str, str]]:
    """System + user message of ``example``'s role (no answer: the model writes it)."""
    if isinstance(example, EngramExample):
        x = example.input
        facts = [(f.subject, f.predicate, f.object) for f in x.facts]
        system = prompts.ENGRAM.format(user=x.user)
        user = prompts.engram_input(x.turn, speaker=x.speaker, date=x.date, facts=facts)
    else:
        x = example.input
        history = [(t.speaker, t.text) for t in x.history]
        system = prompts.RECALL_PLAN.format(user=x.user)
        user = prompts.recall_input(x.message, date=x.date, history=history)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def gold_answer(example: Example) -> str:
    """The gold answer as the model should write it: compact JSON, nothing around it."""
    return example.output.model_dump_json(exclude_none=True)


def training_row(example: Example) -> dict[str, Any]:
    """One row of a TRL conversational prompt dataset: the prompt and the record the rewards
    read back (``reward_columns``)."""
    return {"prompt": messages(example), **reward_columns(example)}
