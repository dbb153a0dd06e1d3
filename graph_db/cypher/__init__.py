"""The Cypher procedure library: one named ``.cypher`` file per operation.

Files are read once at import; a dialect may override a file by placing one of
the same name under ``cypher/<dialect>/``. Queries are only ever run with
parameters, never formatted with user data.
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def _read(dialect: str | None, name: str) -> str | None:
    base = resources.files(__name__)
    path = base / dialect / name if dialect else base / name
    return path.read_text(encoding="utf-8") if path.is_file() else None


def query(name: str, dialect: str) -> str:
    """The text of query ``name`` (without ``.cypher``) for ``dialect``."""
    text = _read(dialect, f"{name}.cypher") or _read(None, f"{name}.cypher")
    if text is None:
        raise KeyError(f"no Cypher query named {name!r} in graph_db/cypher/")
    return text


def statements(filename: str, dimensions: int) -> list[str]:
    """The ``;``-separated statements of a schema file for vectors of ``dimensions``."""
    text = _read(None, filename)
    if text is None:
        raise KeyError(f"no schema file {filename!r} in graph_db/cypher/")
    if isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions <= 0:
        raise ValueError(f"vector dimensions must be a positive int, not {dimensions!r}")
    text = text.replace("__DIMENSIONS__", str(dimensions))
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith(("//", "--"))]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def names() -> list[str]:
    """Every query name in the shared library."""
    base = resources.files(__name__)
    return sorted(
        p.name[: -len(".cypher")]
        for p in base.iterdir()
        if p.name.endswith(".cypher") and not p.name.startswith("schema.")
    )
