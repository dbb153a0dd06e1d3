"""Data at rest: another local user could read memory text straight from the database
files (the home 0755, its files 0644). The home is 0700, so nothing below it can be
reached by another user, whatever mode the engine gives a file it creates later; what an
older version left there is made 0600 (folders 0700)."""

from __future__ import annotations

import os

import pytest

from graph_db import GraphSettings, LiquidGraph

pytestmark = pytest.mark.adversarial


def _open_to_others(paths) -> list[str]:
    return [f"{p} {p.stat().st_mode & 0o777:o}" for p in paths if p.stat().st_mode & 0o077]


def test_a_home_and_everything_in_it_are_private_also_an_older_one(tmp_path, embedder):
    home = tmp_path / "home"
    (home / "log").mkdir(parents=True)
    os.chmod(home, 0o755)
    (home / "log" / "old.log").write_text("a line of memory text")
    os.chmod(home / "log" / "old.log", 0o644)
    older = [home, *home.rglob("*")]
    with LiquidGraph(GraphSettings(home=home, neo4j_uri=None), embedder=embedder) as g:
        g.add_episodes("private", ["nobody else reads this"])
        assert g.search("private", "who reads this?")
        assert home.stat().st_mode & 0o777 == 0o700
        assert _open_to_others(older) == []
        assert (home / "log" / "old.log").stat().st_mode & 0o777 == 0o600
        assert (home / "secrets").stat().st_mode & 0o077 == 0
    assert home.stat().st_mode & 0o777 == 0o700  # also after the engine's stop
