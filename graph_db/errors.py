"""Errors that say what went wrong and how to fix it.

Every error MAGS raises on bad input or a broken environment derives from
``MagsError`` so callers can catch one type; the message always names the fix.
"""

from __future__ import annotations

from typing import Any


class MagsError(Exception):
    """Base class for every MAGS error."""


class InvalidInputError(MagsError, ValueError):
    """Input that MAGS refuses to store (empty, too large, not UTF-8, wrong shape)."""

    @classmethod
    def of(cls, what: str, error: Any) -> InvalidInputError:
        """A pydantic ``ValidationError`` on one line: each field, what is wrong with it,
        and what was given."""
        problems = "; ".join(
            f"{'.'.join(map(str, err['loc'])) or 'value'}: "
            f"{err['msg'].removeprefix('Value error, ')} "
            f"({err['type']}, got {_short(err.get('input'))})"
            for err in error.errors(include_url=False)
        )
        return cls(f"invalid {what}: {problems}")


class SettingsError(MagsError):
    """A setting (``MAGS_*`` in the environment or ``.env``, or given in code) that is not
    valid. Not a ``ValueError``: pydantic would wrap one raised while it validates (a
    settings model validated from a dict) into a ``ValidationError`` of its own."""

    @classmethod
    def of(cls, error: Any, prefix: str = "MAGS_") -> SettingsError:
        """A pydantic ``ValidationError`` of a settings class on one line: each setting by
        its name and environment variable, what is wrong, what was given, and the fix."""
        problems = "; ".join(
            f"{_setting(err['loc'], prefix)}: {err['msg'].removeprefix('Value error, ')} "
            f"(got {_short(err.get('input'))})"
            for err in error.errors(include_url=False)
        )
        return cls(
            f"invalid setting: {problems}. Set a valid value, or unset the variable for its "
            "default (the README's settings table lists them)"
        )


def _setting(loc: tuple[Any, ...], prefix: str) -> str:
    name = str(loc[0]) if loc else "value"
    env = name if name.upper().startswith(prefix) else f"{prefix}{name.upper()}"
    return f"{env} ({name.lower().removeprefix(prefix.lower())})"


class UnknownNamespaceError(MagsError, LookupError):
    """A read on a namespace that holds no memories."""


class NotFoundError(MagsError, LookupError):
    """A memory id that does not exist in the namespace."""


class EmbeddingMismatchError(MagsError, ValueError):
    """Vectors whose dimension differs from the store's vector index."""


class GraphUnavailableError(MagsError, ConnectionError):
    """The graph engine cannot be reached or started."""


class EngineError(MagsError, RuntimeError):
    """The graph engine failed a query (the engine's own error is the ``__cause__``)."""


class StoreBusyError(EngineError):
    """Other writers held the same records longer than the store retries (MAGS_TX_RETRY_S)."""


class HomeLockedError(MagsError, RuntimeError):
    """Another process holds the embedded store's home directory."""


class SnapshotError(MagsError, ValueError):
    """A snapshot file that cannot be read or does not match."""


class NamespaceOccupiedError(SnapshotError):
    """A restore into namespace ``ns``, which holds memories, without ``replace``."""

    def __init__(self, message: str, ns: str) -> None:
        super().__init__(message)
        self.ns = ns


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."
