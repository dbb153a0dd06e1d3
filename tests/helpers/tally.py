"""Counts of the adversarial suite's attacks, printed as a table at the end of the run.

Every attack is one call: stored verbatim (a write that returned and reads back as given),
answered (a read that returned), refused clearly (a ``MagsError``), or a failure (any
other exception, or the wrong one of these). The tests assert each
outcome; the table is the report the hardening issue asks for.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import pytest

from graph_db import MagsError

COLUMNS = ("tried", "refused clearly", "stored verbatim", "answered", "failures")


class Tally:
    def __init__(self) -> None:
        self.rows: dict[str, Counter[str]] = defaultdict(Counter)

    def attempt(self, area: str, call: Callable[[], Any]) -> tuple[bool, Any]:
        """``(True, result)`` or ``(False, the MagsError)``; anything else is a failure."""
        self.rows[area]["tried"] += 1
        try:
            return True, call()
        except MagsError as e:
            return False, e
        except BaseException:
            self.rows[area]["failures"] += 1
            raise

    def refused(self, area: str, call: Callable[[], Any], match: str = "") -> MagsError:
        """The call is refused with a MAGS error whose message matches ``match``."""
        ok, out = self.attempt(area, call)
        if ok or not re.search(match, str(out)):
            self.rows[area]["failures"] += 1
            pytest.fail(f"{area}: expected a MagsError matching {match!r}, got {out!r}")
        self.rows[area]["refused clearly"] += 1
        return out

    def stored(self, area: str, call: Callable[[], Any], verbatim: Callable[[Any], bool]) -> Any:
        """The call succeeds and ``verbatim(result)`` confirms it stored what it was given."""
        ok, out = self.attempt(area, call)
        if not ok or not verbatim(out):
            self.rows[area]["failures"] += 1
            pytest.fail(f"{area}: expected it stored verbatim, got {out!r}")
        self.rows[area]["stored verbatim"] += 1
        return out

    def outcome(self, area: str, column: str) -> None:
        """Count an attempt's outcome once the test has checked it."""
        self.rows[area][column] += 1

    def table(self) -> list[str]:
        width = max([len(a) for a in self.rows] + [len("area")])
        head = f"{'area':<{width}}  " + "  ".join(f"{c:>15}" for c in COLUMNS)
        lines = [head, "-" * len(head)]
        total: Counter[str] = Counter()
        for area in sorted(self.rows):
            total.update(self.rows[area])
            lines.append(
                f"{area:<{width}}  " + "  ".join(f"{self.rows[area][c]:>15}" for c in COLUMNS)
            )
        lines.append(f"{'total':<{width}}  " + "  ".join(f"{total[c]:>15}" for c in COLUMNS))
        return lines


TALLY = Tally()
