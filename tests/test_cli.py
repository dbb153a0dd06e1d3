"""The main job and the example, run as a user would: separate processes, one home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str, home: Path, stdin: str | None = None, env: dict | None = None) -> str:
    out = subprocess.run(
        [*args, "--home", str(home)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={
            "COLUMNS": "200",
            "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
            "MAGS_ENGINE_IDLE_S": os.environ["MAGS_ENGINE_IDLE_S"],  # set by conftest
            **(env or {}),
        },
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@pytest.fixture(params=["arcadedb", "neo4j"])
def engine_env(request) -> dict[str, str]:
    """What points a child process at the engine: nothing (embedded) or MAGS_NEO4J_*."""
    return request.getfixturevalue("neo4j").env() if request.param == "neo4j" else {}


def test_demo_carries_a_fact_into_session_two_and_reconciles_a_move(tmp_path, engine_env):
    """The main job, on each engine and the local llama.cpp server (SmolLM2 here)."""
    mags = str(Path(sys.executable).parent / "mags")
    out = _run(mags, "demo", home=tmp_path, env=engine_env)
    assert "session 2" in out
    why = out.split("what the last answer recalled")[1].split("maya> I moved")[0]
    assert "My dog is called Biscuit." in why  # session 1's turn, found in session 2
    history = out.split("maya lives_in")[1]
    assert "Berlin" in history and "Leeds" in history and "now" in history
    assert "model calls" in out and "mags chat --user maya" in out
    recalled = _run(  # the facts (the model's answers vary from run to run; turns with them)
        mags, "recall", "maya", "Where does Maya live?", "--k", "4", "--blocks", "semantic",
        home=tmp_path, env=engine_env,
    )  # fmt: skip
    assert "maya lives in Leeds" in recalled  # the memory outlives the process
    assert "maya lives in Berlin" not in recalled  # superseded: history, not an answer
    report = _run(mags, "maintain", "maya", home=tmp_path, env=engine_env)
    assert "pruned edges" in report and "nodes after" in report
    [sample] = (tmp_path / "stats" / "ns-maya.jsonl").read_text().splitlines()  # for the UI
    assert json.loads(sample)["nodes"]["Fact"] > 0
    assert "maya" in _run(mags, "namespaces", home=tmp_path, env=engine_env)


def test_chat_remembers_across_runs_and_its_commands_look_inside(tmp_path):
    mags = str(Path(sys.executable).parent / "mags")
    said = "I live in Porto.\n/history lives_in\n/memories\n/bogus\n/quit\n"
    first = _run(mags, "chat", "--user", "zoe", home=tmp_path, stdin=said)
    assert "learned lives_in=Porto" in first  # the turn's memory line
    assert "Porto" in first.split("zoe lives_in")[1] and "now" in first.split("zoe lives_in")[1]
    assert "newest memories of 'zoe'" in first and "Commands:" in first  # /bogus -> help
    second = _run(mags, "chat", "--user", "zoe", home=tmp_path, stdin="Where do I live?\n/why\n")
    assert "I live in Porto." in second.split("what the last answer recalled")[1]  # a new run
    inspected = _run(mags, "inspect", "zoe", home=tmp_path)
    assert "lives_in" in inspected and "Porto" in inspected.split("current facts")[1]
    _run(mags, "chat", "--user", "zoe", home=tmp_path, stdin="I moved to Lisbon last week.\n")
    rows = _run(mags, "recall", "zoe", "Where do I live now?", "--k", "5", home=tmp_path)
    rows = rows.splitlines()
    lisbon = next(i for i, row in enumerate(rows) if "Lisbon" in row)
    assert "zoe lives in Lisbon" in "".join(rows)  # the current fact and the move, first:
    assert lisbon < next((i for i, row in enumerate(rows) if "Porto" in row), len(rows))
    then = _run(mags, "recall", "zoe", "Where do I live?", "--as-of", "2001-01-01", home=tmp_path)
    assert "zoe" not in then.split("Q: Where do I live?")[1]  # nothing was said by then
    near = _run(mags, "recall", "zoe", "Where do I live now?", "--min-similarity", "0.99",
                home=tmp_path)  # fmt: skip
    assert "zoe" not in near.split("Q: Where do I live now?")[1]  # nothing that similar


def test_one_engine_serves_every_command_until_stopped(tmp_path):
    """The home's engine outlives the command that started it, a client whose output pipe
    closes under it ends at once, and ``mags engine stop`` stops the engine."""
    mags = str(Path(sys.executable).parent / "mags")
    idle = {"MAGS_ENGINE_IDLE_S": "600"}  # it must not idle out between two commands here
    assert "No engine runs" in _run(mags, "engine", "status", home=tmp_path, env=idle)
    _run(mags, "namespaces", home=tmp_path, env=idle)  # starts it
    running = _run(mags, "engine", "status", home=tmp_path, env=idle)
    assert "Engine of" in running and "used by 0 processes" in running
    pid = running.split("pid ")[1].split(",")[0]
    piped = subprocess.Popen(
        [mags, "namespaces", "--home", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
             **idle},
    )  # fmt: skip
    piped.stdout.close()  # `mags ... | head -0`: the reader went away
    piped.wait(timeout=60)  # it ends (a hang here fails the test)
    assert f"pid {pid}," in _run(
        mags, "engine", "status", home=tmp_path, env=idle
    )  # the same engine
    assert "Stopped the engine" in _run(mags, "engine", "stop", home=tmp_path, env=idle)
    assert "No engine runs" in _run(mags, "engine", "status", home=tmp_path, env=idle)


def test_ingest_then_search_and_recall(tmp_path):
    mags = str(Path(sys.executable).parent / "mags")
    data = ROOT / "mags_langgraph" / "data" / "demo_conversation.json"
    first = json.loads(data.read_text())
    first = {"sessions": first["sessions"][:1]}  # as if stopped after the first session
    (tmp_path / "first.json").write_text(json.dumps(first))
    n = len(first["sessions"][0]["turns"])
    out = _run(mags, "ingest", str(tmp_path / "first.json"), "--user", "sam", home=tmp_path)
    assert f"Stored {n} turns and 0 facts for 'sam'." in out
    out = _run(mags, "ingest", str(data), "--user", "sam", home=tmp_path)
    assert f"Stored {8 - n} turns and 5 facts for 'sam' ({n} already stored)" in out
    again = _run(mags, "ingest", str(data), "--user", "sam", home=tmp_path)  # idempotent
    assert "Stored 0 turns and 0 facts for 'sam' (13 already stored)" in again
    again = _run(mags, "search", "sam", "peanut allergy", "--k", "2", home=tmp_path)
    assert "allergic to peanuts" in again
    recalled = _run(mags, "recall", "sam", "What is Maya allergic to?", "--k", "3", home=tmp_path)
    assert "allergic to peanuts" in recalled


@pytest.fixture(scope="module")
def errors_home(tmp_path_factory) -> Path:
    """One home for the error cases: its engine starts once, not once per case."""
    return tmp_path_factory.mktemp("errors") / "home"


@pytest.mark.parametrize(
    "args, says",
    [
        (["stats", "nobody"], "No memories under namespace 'nobody'"),
        (["search", "sam", "q", "--blocks", "x"], "blocks must be 'episodic', 'semantic' or"),
        (["recall", "sam", "q", "--k", "3", "--blocks", "dreams"], "blocks must be"),
        (["search", "sam", "q", "--mode", "telepathy"], "mode must be hybrid, vector or"),
        (["ingest", "{tmp}/missing.json", "--user", "x"], "missing.json: no such file"),
        (["ingest", "{tmp}/list.json", "--user", "x"], "Input should be a valid dictionary"),
        (["ingest", "{tmp}/session.json", "--user", "x"], "sessions.0.date: Field required"),
        (["ingest", "{tmp}/session.json"], "sessions.0.turns: Input should be a valid list"),
        (["ingest", "{tmp}/broken.json", "--user", "x"], "not JSON (line 1"),
        (["restore", "{tmp}/missing.snap.gz"], "missing.snap.gz"),
        (["chat", "--user", "alice/x"], "a user id may not contain '/'"),
        (["ingest", "--user", "x"], "needs a FILE"),
        (["recall", "sam", "q", "--as-of", "yesterday-ish"], "'yesterday-ish' is not a time"),
        (["recall", "sam", "q", "--min-similarity", "3"], "min_similarity must be a cosine"),
    ],
)
def test_an_error_is_one_clear_line(tmp_path, errors_home, args, says):
    mags = str(Path(sys.executable).parent / "mags")
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "session.json").write_text('{"sessions": [{"id": "s1", "turns": "hi"}]}')
    (tmp_path / "broken.json").write_text('{"sessions": [')
    args = [a.format(tmp=tmp_path) for a in args]
    out = subprocess.run(
        [mags, *args, "--home", str(errors_home)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 2
    assert out.stdout.startswith("error: ") and says in out.stdout
    assert len(out.stdout.strip().splitlines()) == 1 and "Traceback" not in out.stderr


@pytest.mark.parametrize(
    "args, env, says",
    [
        (["stats", "sam"], {"MAGS_RECALL_ANCHORS": "abc"}, "MAGS_RECALL_ANCHORS (recall_anchors)"),
        (["chat", "--user", "x"], {"MAGS_LLM_TEMPERATURE": "hot"}, "MAGS_LLM_TEMPERATURE"),
    ],
)
def test_a_bad_setting_is_one_clear_line(tmp_path, args, env, says):
    mags = str(Path(sys.executable).parent / "mags")
    out = subprocess.run(
        [mags, *args, "--home", str(tmp_path / "home")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stdout.startswith("error: invalid setting: ") and says in out.stdout
    assert "unset the variable" in out.stdout and "Traceback" not in out.stderr


def test_version_and_a_restore_that_asks_before_replacing(tmp_path):
    mags = str(Path(sys.executable).parent / "mags")
    version = subprocess.run([mags, "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("mags 0.")
    data = ROOT / "mags_langgraph" / "data" / "demo_conversation.json"
    _run(mags, "ingest", str(data), "--user", "sam", home=tmp_path)
    _run(mags, "snapshot", "sam", str(tmp_path / "sam.snap.gz"), home=tmp_path)
    refused = subprocess.run(
        [mags, "restore", str(tmp_path / "sam.snap.gz"), "--home", str(tmp_path)],
        input="n\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "'sam' holds memories. Replace them with sam.snap.gz?" in refused.stdout
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    done = _run(mags, "restore", str(tmp_path / "sam.snap.gz"), home=tmp_path, stdin="y\n")
    assert "Restored" in done


def test_quickstart_example_runs(tmp_path):
    out = _run(sys.executable, str(ROOT / "examples" / "quickstart.py"), home=tmp_path)
    lines = out.splitlines()
    assert "a beagle named Biscuit" in lines[0]  # the best hit: the fact or the turn
    assert lines[-1] == "{'Episode': 1, 'Fact': 1, 'Entity': 3}"  # Sam, Biscuit, the beagle


@pytest.mark.slow
@pytest.mark.parametrize(
    "script, prefix, expect",
    [  # the line the memory part of each example prints, and what it must hold
        ("chatbot_sessions.py", "    recalled: ", "My cat is called Miso."),
        ("langgraph_agent.py", "remembered: ", "I'm allergic to peanuts."),
        ("llamaindex_query_engine.py", "  ", "[episodic] We adopted a beagle puppy called Biscuit"),
    ],
)
def test_agent_examples_run_on_the_local_server(tmp_path, script, prefix, expect):
    out = _run(sys.executable, str(ROOT / "examples" / script), home=tmp_path)
    memory_lines = [line for line in out.splitlines() if line.startswith(prefix)]
    # recalled before it is stored (session 1 cannot recall its own line): session 2 did
    assert any(expect in line for line in memory_lines), out
