"""The conversation file that ``mags ingest`` reads, as typed records. Its JSON schema is
``mags ingest --schema``; an example is ``mags_langgraph/data/demo_conversation.json``."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graph_db import FactIn, InvalidInputError


class Turn(BaseModel):
    """One thing said: stored as an episode of its session."""

    model_config = ConfigDict(extra="forbid")

    text: str
    speaker: str | None = None
    entities: list[str] = Field(default_factory=list, description="Names the turn mentions.")
    id: str | None = Field(default=None, description="Default: derived from its content.")
    metadata: dict[str, Any] = Field(default_factory=dict)


class Session(BaseModel):
    """Turns said together, in order, on one date."""

    model_config = ConfigDict(extra="forbid")

    id: str | int
    date: datetime | float = Field(description="ISO date-time or epoch seconds.")
    turns: list[Turn]


class Conversation(BaseModel):
    """What ``mags ingest`` stores: sessions of turns, and facts known beforehand (other
    top-level keys, e.g. a list of speakers or evaluation questions, are not read)."""

    model_config = ConfigDict(extra="ignore")

    sessions: list[Session]
    facts: list[FactIn] = Field(default_factory=list)


def read_conversation(path: Path) -> Conversation:
    """A conversation file, or one error naming what is wrong and where."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidInputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidInputError(f"{path}: cannot be read ({e})") from None
    except json.JSONDecodeError as e:
        raise InvalidInputError(f"{path}: not JSON (line {e.lineno}: {e.msg})") from None
    try:
        return Conversation.model_validate(data)
    except ValidationError as e:
        raise InvalidInputError.of(f"conversation file {path} (mags ingest --schema)", e) from None


def schema() -> str:
    return json.dumps(Conversation.model_json_schema(), indent=2)
