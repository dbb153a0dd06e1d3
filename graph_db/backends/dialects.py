"""What differs between Neo4j and ArcadeDB: the whole table fits on this screen.

Callers never branch on the engine; they ask the dialect for an index name or
a variant of a named query, and everything else is the shared Cypher library.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: the schema files beside the graph's own: the engine's search indexes, and their drop
SCHEMA_PARTS = ("vectors", "fulltext", "drop-vectors", "drop-fulltext")


@dataclass(frozen=True)
class Dialect:
    name: Literal["neo4j", "arcadedb"]
    #: schema files under graph_db/cypher/ ("{part}": see ``schema_file``) and their language
    schema_files: str
    schema_language: Literal["cypher", "sql"]
    #: vector / full-text index names, formatted with the label
    vector_index: str
    fulltext_index: str
    #: cosine as the engine reports it, index search and vector.similarity.cosine():
    #: "half" is (1 + cos) / 2, "raw" is cos; callers always see raw cosine
    index_score: Literal["half", "raw"]
    exact_score: Literal["half", "raw"]
    #: k-core decomposition: "gds-or-peel" runs gds.kcore.stream over a projection of the
    #: namespace when the GDS procedures are installed (SHOW PROCEDURES, asked once per
    #: backend; graph_db.maintenance), else the edge list is read and peeled in Python;
    #: "peel" always peels. MAGS_KCORE_METHOD=peel forces the peel everywhere
    kcore: Literal["gds-or-peel", "peel"]

    def to_cosine(self, score: float, exact: bool) -> float:
        """The engine's similarity score as a plain cosine in [-1, 1]."""
        kind = self.exact_score if exact else self.index_score
        return 2.0 * score - 1.0 if kind == "half" else score

    def schema_file(self, part: str = "") -> str:
        """The schema file of ``part``: "" the graph's own types and indexes, "vectors" /
        "fulltext" the engine's search indexes, "drop-vectors" / "drop-fulltext" their drop."""
        return self.schema_files.format(part=f".{part}" if part else "")

    def vector_index_name(self, label: str) -> str:
        return self.vector_index.format(label=label, lower=label.lower())

    def fulltext_index_name(self, label: str) -> str:
        return self.fulltext_index.format(label=label, lower=label.lower())


NEO4J = Dialect(
    name="neo4j",
    schema_files="schema{part}.neo4j.cypher",
    schema_language="cypher",
    vector_index="{lower}_embedding",
    fulltext_index="{lower}_terms",
    index_score="half",
    exact_score="half",
    kcore="gds-or-peel",
)

ARCADEDB = Dialect(
    name="arcadedb",
    schema_files="schema{part}.arcadedb.sql",
    schema_language="sql",
    vector_index="{label}[embedding]",
    fulltext_index="{label}[terms]",
    index_score="half",
    exact_score="raw",
    kcore="peel",
)

DIALECTS = {d.name: d for d in (NEO4J, ARCADEDB)}
