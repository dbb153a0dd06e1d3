"""Typed settings for the graph layer (env prefix ``MAGS_``).

Every threshold the memory uses is named here with its meaning, so a user can
tune it from the environment (``MAGS_DUP_THRESHOLD=0.9``) or a ``.env`` file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from graph_db.errors import SettingsError


def default_home() -> Path:
    """The user's data dir for MAGS (e.g. ``~/.local/share/mags``)."""
    return platformdirs.user_data_path("mags", appauthor=False)


class MagsSettings(BaseSettings):
    """Settings read from ``MAGS_*`` (environment, ``.env``) or given in code; one that is
    not valid is a ``SettingsError`` naming its variable, not a pydantic traceback."""

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as e:
            raise SettingsError.of(e) from e


class GraphSettings(MagsSettings):
    """Storage, embedding and write-path settings of the liquid graph."""

    model_config = SettingsConfigDict(
        env_prefix="MAGS_", env_file=".env", extra="ignore", validate_default=True
    )

    # --- where the graph lives -------------------------------------------------
    home: Path = Field(
        default_factory=default_home,
        description="MAGS home: embedded database, password file, logs, snapshots.",
    )
    neo4j_uri: str | None = Field(
        default=None,
        description="bolt://, neo4j:// or neo4j+s:// URI. Unset: the embedded ArcadeDB.",
    )
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = None
    neo4j_database: str = "neo4j"
    arcadedb_database: str = Field(default="mags", description="Database name inside home.")
    arcadedb_heap: str = Field(
        default="2g",
        pattern=r"^[1-9][0-9]*[kKmMgG]?$",
        description="Max JVM heap of the embedded engine (as -Xmx: 2g, 1536m).",
    )
    arcadedb_page_cache: float = Field(
        default=0.45,
        gt=0,
        le=0.8,
        description="Share of the embedded engine's heap that keeps the database's pages "
        "(ArcadeDB's own default is 0.25; its maintainers advise 0.4-0.5 for a process of its "
        "own whose database is larger than that, as the engine's is).",
    )
    join_wait_s: float = Field(
        default=90.0,
        ge=0,
        description="How long a process waits for the home's engine to start.",
    )
    engine_idle_s: float = Field(
        default=300.0,
        ge=0,
        description="The embedded engine (a background process per home) stops after this "
        "long without a MAGS process using it; the next one starts it again.",
    )
    connect_timeout_s: float = Field(default=10.0, gt=0, description="Bolt connection timeout.")
    tx_retry_s: float = Field(default=15.0, ge=0, description="Max time to retry a transaction.")

    # --- embeddings --------------------------------------------------------------
    embedder: Literal["auto", "onnx", "sentence-transformers"] = Field(
        default="auto",
        description="'auto' takes the int8 ONNX MiniLM when installed (same ranking, faster), "
        "else sentence-transformers.",
    )
    embedding_model: str = Field(
        default="sentence-transformers/all-MiniLM-L6-v2",
        description="Hub id or local path of a sentence-transformers model.",
    )
    embedding_batch_size: int = Field(default=64, ge=1)
    query_cache_size: int = Field(default=2048, ge=0, description="LRU size for query vectors.")

    # --- write path --------------------------------------------------------------
    max_text_chars: int = Field(
        default=32_000, ge=1, description="Longest memory text accepted; split longer input."
    )
    dup_threshold: float = Field(
        default=0.95,
        ge=0,
        le=1,
        description="tau_dup: a new fact this similar (cosine) to a current fact with the same "
        "subject and predicate is merged into it instead of stored again.",
    )
    entity_threshold: float = Field(
        default=0.92,
        ge=0,
        le=1,
        description="tau_ent: an entity name this similar to a known entity is the same entity "
        "(after exact match on the normalised name failed).",
    )
    assoc_neighbours: int = Field(
        default=5, ge=0, description="m: initial ASSOC edges a new memory gets (GAT-style)."
    )
    assoc_w0: float = Field(
        default=0.6, gt=0, le=1, description="w0: total initial weight spread over m edges."
    )
    assoc_temperature: float = Field(
        default=0.1, gt=0, description="tau of the softmax over neighbour similarities."
    )
    assoc_min_similarity: float = Field(
        default=0.35, ge=-1, le=1, description="Neighbours less similar than this get no edge."
    )

    # --- search ------------------------------------------------------------------
    search_overfetch: int = Field(
        default=4,
        ge=1,
        description="A namespace holding less than 1/overfetch of a label's index is searched "
        "exactly (up to exact_search_max nodes); a larger one through the index, asked for "
        "enough hits to expect k of its own, and widened until k are found.",
    )
    exact_search_max: int = Field(
        default=20_000,
        ge=0,
        description="A namespace with at most this many memories of a label that is a small "
        "share of the index is searched exactly (no tenant starves another's top-k).",
    )
    stem_language: str = Field(
        default="english",
        description="Snowball stemmer for the full-text terms (PyStemmer language name), "
        "or 'none' to index words as they are.",
    )
    episode_views: bool = Field(
        default=True,
        description="Also embed each sentence of a turn and the turn with the one before it "
        "(stored on the episode, used to re-score recall candidates). Costs about 2x the "
        "embedding time on write; raised LoCoMo R_any@10 by ~0.08.",
    )
    read_index: bool = Field(
        default=True,
        description="Keep each namespace's recall vectors and full-text terms in process "
        "(graph_db.read_index) and search them there, checked against the namespace's "
        "version before each search; false: the engine's vector and full-text indexes "
        "answer, as before.",
    )
    read_index_fulltext: bool = Field(
        default=True,
        description="With the read index on, full-text search too runs in process (BM25 "
        "over each namespace's own term statistics); false: the engine's full-text index "
        "answers (global per label: other namespaces' turns weigh on the terms).",
    )
    read_index_max_memories: int = Field(
        default=250_000,
        ge=1,
        description="Memories the read index holds over all namespaces (~4 KB each with "
        "their vectors) before the least recently searched namespaces are let go (read "
        "again when next searched); one namespace larger than this is held alone.",
    )
    read_index_exact_below: int = Field(
        default=10_000,
        ge=0,
        description="A namespace's episodes (or facts) are searched exactly by the read "
        "index up to this many; past it through an HNSW graph (usearch, int8) built on a "
        "background thread, the rows it finds scored exactly (at 12.5k facts of a 100k "
        "namespace: a scan of ~3.5 ms a recall, the graph's search ~0.5 ms).",
    )
    read_index_persist_min: int = Field(
        default=5_000,
        ge=0,
        description="A namespace's read index of at least this many memories is saved in "
        "the home (read-index/) after it is built and when the graph closes, and read from "
        "there next time, caught up on what changed since (0: never saved).",
    )
    read_index_gc_freeze: bool = Field(
        default=True,
        description="After the read index reads or loads namespaces of 10,000 memories or "
        "more, move what the process holds out of Python's cyclic garbage collector's way "
        "(gc.freeze, after one collection): a full collection over a 100k namespace's "
        "index took 30-90 ms and came about once in 30 recalls. Frozen objects are never "
        "freed as cycles; false: the collector is left alone.",
    )
    read_index_hnsw_ef: int = Field(
        default=256,
        ge=1,
        description="How broadly an HNSW search of the read index looks (usearch's "
        "expansion_search; at least the number asked for): higher finds more of the exact "
        "nearest, slower.",
    )
    episode_context_view: Literal["embed", "derive"] = Field(
        default="embed",
        description="How a turn's in-context view is made: 'embed' embeds the turn with the "
        "one before it (half of a turn's embedding time), 'derive' mixes the two turns' own "
        "vectors weighted by their lengths (no model call; LoCoMo evidence recall @10 level, "
        "@5 1.5 points lower: see the README).",
    )

    # --- recall ------------------------------------------------------------------
    blas_threads: int = Field(
        default=1,
        ge=0,
        description="BLAS threads while a recall or a write computes (0: the process's own "
        "setting). One: a recall's matrix products are small, and a second thread's spinning "
        "takes the core the engine and the embedder need (see graph_db/blas.py).",
    )
    recall_candidates: int = Field(
        default=50,
        ge=1,
        description="K': candidates over-queried per label and per search (vector, full-text).",
    )
    recall_anchors: int = Field(
        default=10, ge=1, description="m: anchors chosen from the candidates (facility location)."
    )
    recall_diversity: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="Weight of coverage against relevance when choosing anchors (0: top-m).",
    )
    recall_lexical_weight: float = Field(
        default=0.5, ge=0, description="Weight of the full-text score against the dense one."
    )
    recall_context_weight: float = Field(
        default=0.5,
        ge=0,
        description="Weight of the turn-with-its-predecessor view in the dense score.",
    )
    walk_threshold: float = Field(
        default=0.02,
        gt=0,
        lt=1,
        description="theta: a walk stops where anchor relevance x product of weights is lower.",
    )
    walk_depth: int = Field(default=2, ge=0, description="Max hops from an anchor.")
    walk_next_weight: float = Field(
        default=0.37,
        ge=0,
        le=1,
        description="Weight of a NEXT edge (the turn before/after) in the walk.",
    )
    walk_derived_weight: float = Field(
        default=0.8, ge=0, le=1, description="Weight of a DERIVED_FROM edge (fact <-> source)."
    )
    walk_entity_weight: float = Field(
        default=0.3,
        ge=0,
        le=1,
        description="Weight of a hop through a shared entity, divided by sqrt(entity degree).",
    )
    walk_max_fanout: int = Field(
        default=256,
        ge=1,
        description="Edges of one memory a walk step reads at most: a hub (a memory tied to "
        "thousands) is reached but not walked through in full.",
    )
    walk_max_reached: int = Field(
        default=500,
        ge=0,
        description="Memories a walk keeps at most, those of highest activation (0: all): a "
        "walk through a dense part of the graph reached up to ~3,000, each then scored.",
    )
    walk_entity_max_degree: int = Field(
        default=20, ge=1, description="Entities linked to more memories are not walked through."
    )
    rank_importance_weight: float = Field(
        default=0.05, ge=0, description="Weight of importance in the final ranking."
    )
    rank_recency_weight: float = Field(
        default=0.02, ge=0, description="Weight of recent access in the final ranking."
    )
    recall_speaker_weight: float = Field(
        default=0.3,
        ge=0,
        description="Added to the final score of a memory whose speaker, or a fact's subject, "
        "is named in the query ('What did Nate cook?'); relevance is at most 1.",
    )
    recall_time_weight: float = Field(
        default=1.5,
        ge=0,
        description="Boost (in candidate standard deviations) for a memory whose time is near "
        "a calendar date written in the query ('... on 9 November, 2022?').",
    )
    recall_name_free: bool = Field(
        default=True,
        description="Also search each query without the names in it: turns that only greet "
        "someone by name match a question about that person too well.",
    )
    recall_name_free_fulltext: bool = Field(
        default=True,
        description="Search the name-free queries in full text too, not by meaning alone: "
        "their words are the asked query's less the names, so their hits count the same "
        "words again.",
    )
    recall_name_free_penalty: float = Field(
        default=0.75,
        ge=0,
        description="What a match to the name-free query counts less than one to the query "
        "asked (in candidate standard deviations).",
    )
    recall_length_prior: float = Field(
        default=0.75,
        ge=0,
        description="A document-length prior: relevance x (1 + content words)^w. Longer "
        "memories carry more to ask about; short phatic turns ('Hey Mel, how are you?') match "
        "a question by the names in it and are rarely what was asked for.",
    )
    recall_length_cap: int | None = Field(
        default=8,
        ge=1,
        description="Content words beyond which a memory's length adds nothing to its prior "
        "(None: no cap). Past a sentence, more words say more things, not more about what was "
        "asked: an 80-word room description outranked the 5-word turn that answered.",
    )
    recall_question_penalty: float = Field(
        default=2.0,
        ge=0,
        description="What a turn that only asks ('Where do I live?') counts less in the ranking "
        "than one that states something (its score x exp(-penalty)): a question asked again "
        "matches the earlier ones best, yet holds no answer; it still anchors the walk to one.",
    )
    recall_corrections_first: bool = Field(
        default=True,
        description="A recalled turn that stated a value since superseded ('I live in Lisbon' "
        "after a move) comes after its correction: the current fact and the turn that stated it.",
    )
    recall_newest_first: bool = Field(
        default=True,
        description="Asked how things stand ('Where is the laptop?': no date, no past), "
        "recalled turns that match the query by the same words fill the places they earned "
        "newest first: the later one tells the current state.",
    )
    recall_newest_window: int = Field(
        default=10,
        ge=1,
        description="recall_newest_first reorders (and lets the newest turn with every "
        "query word in) within the first this many places, whatever k: the first places of "
        "a recall do not depend on how many more were asked for.",
    )
    recall_collapse_repeats: bool = Field(
        default=True,
        description="Asked how things stand, a turn of recall_length_cap content words or more "
        "repeated word for word (a room described on every visit) takes one place in a "
        "recall, its best copy's, and the other copies' places go to other turns. Shorter "
        "copies ('go west' in two rooms) stay apart.",
    )

    # --- plasticity and decay ------------------------------------------------------
    cofire_anchors: int = Field(
        default=4, ge=0, description="The top anchors of a recall linked pairwise (co-firing)."
    )
    cofire_linger_ms: float = Field(
        default=100,
        ge=0,
        description="How long the background writer waits for more recalls' co-firing before "
        "it writes them in one transaction (0: each as soon as it can).",
    )
    hebbian_eta: float = Field(
        default=0.2, gt=0, le=1, description="eta: learning rate of w <- w + eta*u*(1-w)."
    )
    cofire_usefulness: float = Field(
        default=0.1,
        ge=0,
        le=1,
        description="u given to anchor pairs that fired together in a recall (links them).",
    )
    decay_per_day: float = Field(
        default=0.01,
        ge=0,
        description="lambda: ASSOC weights decay as w*exp(-lambda*days since last fired).",
    )
    decay_recency_days: float = Field(
        default=7.0,
        ge=0,
        description="Recency correction: an edge is held at full strength for this many days "
        "after it fired, then decays (evaluated lazily, where it is read).",
    )
    w_perm: float = Field(
        default=0.9, gt=0, le=1, description="An edge this strong becomes permanent."
    )
    w_min: float = Field(
        default=0.02, ge=0, lt=1, description="Non-permanent edges weaker than this are pruned."
    )

    # --- maintenance -----------------------------------------------------------------
    maintain_batch: int = Field(
        default=4_000,
        ge=1,
        description="Memories one incremental maintenance pass visits at most (each of its "
        "steps: edges due to expire, memories due for vitals), and the most births or deaths "
        "per pass: what bounds a pass's time (~0.7 ms per memory at 1M edges on 2 cores: "
        "maintain_budget_s keeps a pass under 3 s when the machine is slower).",
    )
    maintain_budget_s: float | None = Field(
        default=2.5,
        gt=0,
        description="Seconds an incremental pass may spend (the k-core decomposition not "
        "counted): pruning and visiting stop between pages once their share is spent (each "
        "takes its first page whatever the time), and what was not reached stays due for the "
        "next pass. None: only maintain_batch bounds.",
    )
    vitals_refresh_days: float = Field(
        default=7.0,
        gt=0,
        description="A memory nothing happened to is revisited by maintenance (importance "
        "recomputed as it ages) after this many days, give or take half.",
    )
    kcore_every_days: float = Field(
        default=1.0,
        ge=0,
        description="The k-core decomposition (a global pass over every edge) runs when the "
        "last one is older than this; incremental passes use the stored core numbers.",
    )
    kcore_method: Literal["auto", "gds", "peel"] = Field(
        default="auto",
        description="How the k-core decomposition runs: 'auto' in the engine when it can "
        "(Neo4j with the Graph Data Science procedures: gds.kcore.stream over a projection of "
        "the namespace, dropped after), else reading the edge list and peeling in Python; "
        "'gds' requires GDS (an error without it); 'peel' always peels. Same core numbers.",
    )
    grace_days: float = Field(
        default=90.0,
        ge=0,
        description="A peripheral, unimportant memory not accessed for this long is forgotten "
        "(Game of Life rule: isolation -> weaken -> die).",
    )
    isolation_decay: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="Factor on the importance of an isolated memory at each maintenance.",
    )
    forget_importance: float = Field(
        default=0.1,
        ge=0,
        le=1,
        description="Only memories under this importance may be forgotten.",
    )
    core_protect: int = Field(
        default=3,
        ge=1,
        description="Only a k-core with k >= this is ever consolidated (importance up, "
        "protected from forgetting while the memory stays there).",
    )
    protect_share: float = Field(
        default=0.1,
        ge=0,
        le=1,
        description="The innermost cores consolidated hold at most this share of memories.",
    )
    forget_core: int = Field(
        default=1,
        ge=0,
        description="Only memories on the periphery (core number <= this) may be forgotten.",
    )
    triadic_min_common: int = Field(
        default=2,
        ge=1,
        description="Two memories with this many strong common neighbours get an edge.",
    )
    triadic_min_w: float = Field(
        default=0.3, ge=0, le=1, description="'Strong' edge for triadic closure."
    )
    capacity: int | None = Field(
        default=None,
        ge=1,
        description="Max memories per namespace; maintenance drops the least important above "
        "it (None: no limit).",
    )

    # --- reconcile -------------------------------------------------------------------
    reconcile_margin: float = Field(
        default=0.2,
        ge=0,
        le=1,
        description="A new value replaces the current one unless its confidence is lower than "
        "the current one's (weighted by importance) by more than this.",
    )


#: The settings a what-if may change per call (``LiquidGraph.tuned``: the UI's knobs, a tuning
#: trial), by what they steer; the others shape what is stored and stay fixed.
TUNABLE: dict[str, Literal["recall", "maintenance"]] = {
    "recall_candidates": "recall",
    "recall_anchors": "recall",
    "recall_diversity": "recall",
    "recall_lexical_weight": "recall",
    "recall_length_prior": "recall",
    "recall_length_cap": "recall",
    "recall_name_free": "recall",
    "recall_name_free_fulltext": "recall",
    "recall_name_free_penalty": "recall",
    "walk_depth": "recall",
    "walk_threshold": "recall",
    "walk_max_fanout": "recall",
    "walk_max_reached": "recall",
    "decay_per_day": "maintenance",
    "decay_recency_days": "maintenance",
    "w_min": "maintenance",
    "grace_days": "maintenance",
    "forget_importance": "maintenance",
    "forget_core": "maintenance",
    "core_protect": "maintenance",
    "protect_share": "maintenance",
    "capacity": "maintenance",
}
