"""The main job and the example, run as a user would: separate processes, one home."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str, home: Path) -> str:
    out = subprocess.run(
        [*args, "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={"COLUMNS": "200", "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_demo_stores_recalls_and_persists_across_processes(tmp_path):
    mags = str(Path(sys.executable).parent / "mags")
    out = _run(mags, "demo", home=tmp_path)
    assert "Stored 8 turns and 5 facts for user 'maya'" in out
    assert "Maya is allergic to peanuts" in out
    again = _run(mags, "search", "maya", "peanut allergy", "--k", "2", home=tmp_path)
    assert "allergic to peanuts" in again
    recalled = _run(mags, "recall", "maya", "What is Maya allergic to?", "--k", "3", home=tmp_path)
    assert "allergic to peanuts" in recalled
    report = _run(mags, "maintain", "maya", home=tmp_path)
    assert "pruned edges" in report and "nodes after" in report
    assert "maya" in _run(mags, "namespaces", home=tmp_path)


def test_an_error_is_one_clear_line(tmp_path):
    mags = str(Path(sys.executable).parent / "mags")
    out = subprocess.run(
        [mags, "stats", "nobody", "--home", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 2
    assert "No memories under namespace 'nobody'" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr


def test_quickstart_example_runs(tmp_path):
    out = _run(sys.executable, str(ROOT / "examples" / "quickstart.py"), home=tmp_path)
    assert "a beagle named Biscuit" in out.splitlines()[0] or "beagle" in out
