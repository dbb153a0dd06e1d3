"""The web UI (mags_langgraph/ui, served at /ui/ by ``create_app(graph, ui=True)``) in a real
browser, on both engines: the Debian chromium driven by Playwright, against the API served by
uvicorn in a thread. The page loads the graph, recalls (anchors and the walk light up), shows
a fact's history, pins, forgets, snapshots and rolls back; each change is checked through the
API. ``MAGS_UI_SCREENSHOTS=1`` writes the screenshots into docs/screenshots/.

Needs /usr/bin/chromium (``apt-get install chromium``; Playwright's own browser download is
not used) and the built UI (``make setup`` runs the npm build into mags_langgraph/ui/dist)."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from playwright.sync_api import Browser, Page, sync_playwright

import mags_langgraph
from graph_db import LiquidGraph
from mags_langgraph.api import create_app
from mags_langgraph.loop import MemoryLoop
from mags_langgraph.settings import AgentSettings

CHROMIUM = Path("/usr/bin/chromium")
DIST = Path(mags_langgraph.__file__).resolve().parent / "ui" / "dist"
SCREENSHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TOKEN = "ui-s3cret"
DAY = 86_400.0


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.is_file():
        pytest.fail(f"no browser at {CHROMIUM}: install it with `apt-get install chromium`")
    if not (DIST / "index.html").is_file():
        pytest.fail(f"the web UI is not built ({DIST}/index.html is missing): run `make setup`")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn in a thread on a free loopback port; yields its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, name="ui-test-api", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)  # waiting for a condition, not timing anything
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@contextmanager
def opened(browser: Browser, url: str) -> Iterator[tuple[Page, list[str]]]:
    """A 1400x900 page at ``url``; yields it and the page's uncaught errors."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    try:
        yield page, errors
    finally:
        context.close()


def seed(graph: LiquidGraph, ns: str) -> dict[str, str]:
    """A handful of turns and their facts; lives_in Paris is superseded by Leeds."""
    t0 = time.time() - 30 * DAY
    turns = [
        "I live in Paris.",
        "My sister Ana is a doctor.",
        "I have a cat called Miso.",
        "I moved to Leeds last month.",
        "I work at Acme as an engineer.",
        "I play the cello on Sundays.",
    ]
    said = graph.add_episodes(
        ns,
        [
            {"text": t, "speaker": "user", "session_id": "s1", "ts": t0 + i * DAY}
            for i, t in enumerate(turns)
        ],
    )

    def fact(subject: str, predicate: str, obj: str, turn: int) -> Any:
        [w] = graph.add_facts(
            ns,
            [
                {
                    "subject": subject,
                    "predicate": predicate,
                    "object": obj,
                    "source_episode_id": said[turn],
                    "valid_from": datetime.fromtimestamp(t0 + turn * DAY, UTC),
                }
            ],
        )
        return w

    paris = fact("user", "lives_in", "Paris", 0)
    leeds = fact("user", "lives_in", "Leeds", 3)
    assert leeds.supersedes == [paris.id]
    fact("Ana", "works_as", "doctor", 1)
    fact("user", "has_pet", "Miso", 2)
    cello = fact("user", "plays", "cello", 5)
    return {
        "paris": paris.id,
        "leeds": leeds.id,
        "cat": said[2],
        "acme": said[4],
        "cello": said[5],
        "cello_fact": cello.id,
    }


def loads(page: Page) -> int:
    return page.evaluate("window.magsUI.state.loads")


def reloaded_after(page: Page, before: int) -> None:
    page.wait_for_function(f"window.magsUI.state.loads > {before} && !window.magsUI.state.busy")


def shot(page: Page, name: str, tmp_path: Path) -> Path:
    folder = SCREENSHOTS if os.environ.get("MAGS_UI_SCREENSHOTS") == "1" else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000
    return path


def click_node(page: Page, memory_id: str) -> None:
    """A real mouse click on a node: centred in the view first (clear of the others)."""
    x, y = page.evaluate(
        """(id) => {
            const cy = window.magsUI.cy, node = cy.getElementById(id);
            cy.zoom(1.6); cy.center(node);
            const p = node.renderedPosition(); return [p.x, p.y];
        }""",
        memory_id,
    )
    box = page.locator("#cy").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + x, box["y"] + y)


def status(base: str, ns: str, memory_id: str) -> int:
    return httpx.get(f"{base}/v1/namespaces/{ns}/memories/{memory_id}").status_code


def test_ui_end_to_end(graph: LiquidGraph, ns: str, browser: Browser, tmp_path: Path):
    ids = seed(graph, ns)
    # chat's model is down (nothing listens on port 9): the turn is still stored
    dead = AgentSettings(
        engram="rules", reconcile="rules", llm_base_url="http://127.0.0.1:9/v1", llm_api_key="x"
    )
    app = create_app(graph, MemoryLoop(graph, settings=dead), ui=True)
    with (
        serving(app) as base,
        opened(browser, f"{base}/ui/?ns={ns}") as (
            page,
            errors,
        ),
    ):
        api = f"{base}/v1/namespaces/{ns}"
        # the graph: episodes, facts and entities, the superseded fact marked
        page.wait_for_function("window.magsUI && window.magsUI.state.loads > 0")
        count = page.evaluate
        assert count("magsUI.cy.nodes().length") > 0
        assert count("magsUI.cy.nodes('.episode').length") == 6
        assert count("magsUI.cy.nodes('.fact').length") == 5
        assert count("magsUI.cy.nodes('.entity').length") > 0
        assert count("magsUI.cy.edges().length") > 0
        superseded = count("magsUI.cy.nodes('.superseded').map(n => n.id())")
        assert superseded == [ids["paris"]]
        assert page.input_value("#ns-select") == ns
        assert page.locator("#recall-knobs [data-knob]").count() > 0

        # a click on the old fact: its details and its history, oldest first
        click_node(page, ids["paris"])
        page.wait_for_selector("#history li")
        assert page.inner_text("#detail-text") == "user lives in Paris"
        assert page.locator("#history li .hval").all_inner_texts() == ["Paris", "Leeds"]
        assert page.locator("#history li.old .hval").all_inner_texts() == ["Paris"]
        assert page.locator("#history li.current .hval").all_inner_texts() == ["Leeds"]
        page.click("#fit-btn")
        shot(page, "ui-graph.png", tmp_path)

        # recall: the anchors, the walk and the hits light up; the hits list their paths
        before = loads(page)
        page.fill("#recall-query", "Where do I live?")
        page.click("#recall-btn")
        reloaded_after(page, before)
        page.wait_for_selector("#hits li")
        hits = page.evaluate("magsUI.state.hits")
        assert hits
        assert page.locator("#hits li").count() == len(hits)
        assert count("magsUI.cy.$('.anchor').length") > 0
        assert count("magsUI.cy.$('.hit').length") > 0
        assert count("magsUI.cy.edges('.walk').length") > 0
        walked = [h for h in hits if h["path"]]
        assert walked
        assert "→" in page.locator(f"#hits li[data-id='{walked[0]['id']}'] .hit-path").inner_text()
        shot(page, "ui-recall.png", tmp_path)

        # the recall knobs go with the recall: no walk at depth 0
        page.click("#recall-form + .knobs-box summary")
        page.fill("#recall-knobs input[data-knob=walk_depth]", "0")
        page.dispatch_event("#recall-knobs input[data-knob=walk_depth]", "change")
        # a yes/no setting is a checkbox, sent as a boolean
        name_free = "#recall-knobs input[type=checkbox][data-knob=recall_name_free]"
        assert page.is_checked(name_free)
        page.uncheck(name_free)
        assert page.locator("#recall-knobs .knob.changed").count() == 2
        before = loads(page)
        with page.expect_request(lambda r: r.url.endswith("/recall")) as sent:
            page.click("#recall-btn")
        assert sent.value.post_data_json["settings"]["walk_depth"] == 0
        assert sent.value.post_data_json["settings"]["recall_name_free"] is False
        reloaded_after(page, before)
        assert page.evaluate("magsUI.state.hits.filter(h => h.path.length).length") == 0
        assert count("magsUI.cy.edges('.walk').length") == 0
        assert count("magsUI.cy.$('.hit').length") > 0

        # pin: the memory is permanent in the store and marked in the graph
        page.evaluate("(id) => window.magsUI.showDetails(id)", ids["cello"])
        page.wait_for_selector("#pin-btn:text-is('Pin')")
        page.click("#pin-btn")
        page.wait_for_selector("#pin-btn:text-is('Unpin')")
        assert httpx.get(f"{api}/memories/{ids['cello']}").json()["memory"]["permanent"] is True
        assert count(f"magsUI.cy.getElementById('{ids['cello']}').hasClass('permanent')")

        # forget (confirmed in the dialog): gone from the store and the graph
        forget(page, ids["cat"])
        assert status(base, ns, ids["cat"]) == 404
        assert count(f"magsUI.cy.getElementById('{ids['cat']}').length") == 0

        # a snapshot, another memory forgotten, a rollback: it is back, the first is not
        page.click("button[data-tab=snapshots]")
        page.click("#snapshot-btn")
        page.wait_for_selector("#snapshots li.snapshot")
        [snapshot] = httpx.get(f"{api}/snapshots").json()["snapshots"]
        assert page.get_attribute("#snapshots li.snapshot", "data-name") == snapshot["name"]
        forget(page, ids["acme"])
        assert status(base, ns, ids["acme"]) == 404
        page.click("button[data-tab=snapshots]")
        before = loads(page)
        page.click("#snapshots li.snapshot .restore-btn")
        page.click("#modal-ok")
        reloaded_after(page, before)
        assert status(base, ns, ids["acme"]) == 200
        assert status(base, ns, ids["cat"]) == 404
        assert count(f"magsUI.cy.getElementById('{ids['acme']}').length") == 1

        # edit a memory's text: stored, and shown
        page.evaluate("(id) => window.magsUI.showDetails(id)", ids["acme"])
        page.wait_for_selector(f"#details code:text-is('{ids['acme']}')")
        page.click("#edit-btn")
        page.fill("#edit-text", "I work at Initech as an engineer.")
        page.click("#save-edit")
        page.wait_for_selector("#detail-text:text-is('I work at Initech as an engineer.')")
        edited = httpx.get(f"{api}/memories/{ids['acme']}").json()["memory"]["text"]
        assert edited == "I work at Initech as an engineer."

        # the maintenance preview under a capacity marks what would go and changes nothing;
        # running it forgets exactly those
        page.click("button[data-tab=maintenance]")
        held = len(httpx.get(f"{api}/memories", params={"limit": 100}).json()["memories"])
        page.fill("#capacity", str(held - 2))
        page.click("#preview-btn")
        page.wait_for_selector("#maintenance-report tr[data-key=visited]")
        doomed = set(count("magsUI.cy.nodes('.doomed').map(n => n.id())"))
        assert len(doomed) == 2
        assert all(status(base, ns, d) == 200 for d in doomed)
        before = loads(page)
        page.click("#maintain-btn")
        page.click("#modal-ok")
        reloaded_after(page, before)
        assert all(status(base, ns, d) == 404 for d in doomed)
        page.fill("#capacity", "")
        page.click("button[data-tab=charts]")
        page.wait_for_selector("#chart-size svg")
        page.wait_for_selector("#chart-weights svg")

        assert page.locator(".toast.error").all_inner_texts() == []

        # a chat turn with the model down: the message and its fact are stored and marked
        # as just written, the failure is shown
        page.click("button[data-tab=chat]")
        before = loads(page)
        page.fill("#chat-message", "I live in York.")
        page.click("#chat-send")
        reloaded_after(page, before)
        page.wait_for_selector(".msg.agent.error")
        said = page.evaluate("magsUI.state.lastChat")
        assert said["answer"] is None
        assert [(w["predicate"], w["object"]) for w in said["written"]] == [("lives_in", "York")]
        fresh = {said["episode_id"], said["written"][0]["id"]}
        assert set(count("magsUI.cy.nodes('.fresh').map(n => n.id())")) == fresh
        assert status(base, ns, said["episode_id"]) == 200
        [failure] = page.locator(".toast.error").all_inner_texts()
        assert "the model did not answer" in failure
        assert errors == []


def forget(page: Page, memory_id: str) -> None:
    """Forget ``memory_id`` through its details' button and the confirm dialog."""
    page.evaluate("(id) => window.magsUI.showDetails(id)", memory_id)
    page.wait_for_selector(f"#details code:text-is('{memory_id}')")
    before = loads(page)
    page.click("#forget-btn")
    page.wait_for_selector("#modal:not([hidden])")
    page.click("#modal-ok")
    reloaded_after(page, before)


def test_ui_asks_for_the_token(graph: LiquidGraph, ns: str, browser: Browser):
    graph.add_episode(ns, "I keep a diary.", speaker="user")
    app = create_app(graph, token=TOKEN, ui=True)
    with serving(app) as base, opened(browser, f"{base}/ui/?ns={ns}") as (page, errors):
        page.wait_for_selector("#modal-input:visible")
        page.fill("#modal-input", TOKEN)
        page.click("#modal-ok")
        page.wait_for_function("window.magsUI.state.loads > 0")
        assert page.evaluate("window.magsUI.cy.nodes('.episode').length") == 1
        assert page.evaluate("sessionStorage.getItem('mags.token')") == TOKEN
        assert page.locator(".toast.error").all_inner_texts() == []
        assert errors == []
