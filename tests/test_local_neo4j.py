"""The local Neo4j that tests and developers run: loopback only, its password required, and
no JVM (nor its temporary home) outlives the process that started it, however that ends."""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError

from graph_db.backends import local_neo4j
from graph_db.backends.local_neo4j import Neo4jPrerequisiteError, find_java, resolve_classpath

OWNER = Path(__file__).parent / "helpers" / "neo4j_owner.py"


def test_a_missing_java_or_maven_says_what_to_install(tmp_path, monkeypatch):
    with pytest.raises(Neo4jPrerequisiteError, match="Install a JDK 99"):
        find_java(minimum=99)
    monkeypatch.delenv("MAGS_NEO4J_MVN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no mvn on it
    with pytest.raises(Neo4jPrerequisiteError, match="apt-get install maven"):
        resolve_classpath(cache_dir=tmp_path)


@pytest.fixture
def prerequisites() -> None:
    """Java 25 and Maven, or a skip (a failure where MAGS_REQUIRE_NEO4J=1) naming them."""
    try:
        find_java()
        resolve_classpath()
    except Neo4jPrerequisiteError as e:
        if os.environ.get("MAGS_REQUIRE_NEO4J") == "1":
            pytest.fail(str(e))
        pytest.skip(str(e))


@pytest.mark.slow
def test_loopback_only_password_required_and_the_jvm_dies_with_its_owner(prerequisites):
    owner = subprocess.Popen(
        [sys.executable, str(OWNER)], stdout=subprocess.PIPE, text=True, cwd=OWNER.parent
    )
    started: dict = {}
    try:
        line = owner.stdout.readline()
        assert line, "the owner process exited before Neo4j served"
        started = json.loads(line)
        jvm = psutil.Process(started["pid"])
        listening = [c for c in jvm.net_connections(kind="inet") if c.status == "LISTEN"]
        assert any(c.laddr.port == int(started["uri"].rsplit(":", 1)[1]) for c in listening)
        for c in listening:
            ip = ipaddress.ip_address(c.laddr.ip)
            assert (getattr(ip, "ipv4_mapped", None) or ip).is_loopback, c.laddr
        wrong = GraphDatabase.driver(started["uri"], auth=("neo4j", "not-the-password"))
        with wrong, pytest.raises(AuthError):
            wrong.verify_connectivity()
        with GraphDatabase.driver(started["uri"], auth=("neo4j", started["password"])) as d:
            assert d.execute_query("RETURN 1 AS one").records[0]["one"] == 1
        owner.send_signal(signal.SIGKILL)  # no atexit, no finaliser: only the closed pipe
        owner.wait(timeout=30)
        _, alive = psutil.wait_procs([jvm], timeout=120)
        assert not alive, "the JVM outlived the process that started it"
        assert not Path(started["home"]).exists(), "the killed owner's temporary home is left"
    finally:
        if owner.poll() is None:
            owner.kill()
        if started:
            shutil.rmtree(started["home"], ignore_errors=True)


def test_the_launcher_files_ship_with_the_package():
    files = local_neo4j._files()
    assert (files / "pom.xml").is_file() and (files / "MagsNeo4j.java").is_file()
    assert "<neo4j.version>" in (files / "pom.xml").read_text()
