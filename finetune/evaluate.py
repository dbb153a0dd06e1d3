"""Score models on a role's held-out split: base vs adapter side by side, one table + JSON.

    python -m finetune.evaluate --role engram --model base --model runs/engram-x/adapter
    python -m finetune.evaluate --role recall --model http://127.0.0.1:8080/v1 [--guardrails]

A model is ``base`` (the config's base model), an adapter folder (PEFT, on that base), an
OpenAI-compatible endpoint URL, or ``llama.cpp`` / ``llama.cpp:LORA.gguf``: what the agent
serves by default, the config's GGUF in the local llama.cpp server, with the converted
adapter (``--guardrails`` asks servers for the role's JSON schema, as the agent does).
Greedy decoding, the agent's prompts. Engram: format-valid rate (parses
into the schema, nothing else counted), triplet precision / recall / F1 (micro over
examples, the rewards' matching), invented entities (share of triplets whose subject or
object is not in the input, or is "I"); recall: format-valid, decision accuracy (recall or not),
usefulness (share of gold memories the queries find through graph_db's recall).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from tqdm import tqdm

from finetune.prompting import messages
from finetune.reward_config import RewardConfig, load_reward_config
from finetune.reward_parse import parse_completion
from finetune.rewards import grounding_report, triplet_prf, usefulness_score
from finetune.train import load_base, load_split
from finetune.train_config import load_train_config
from graph_db.errors import MagsError
from mags_langgraph.schemas import Engram, RecallPlan, grounded_engram_schema

Generate = Callable[[list[dict[str, str]], dict[str, Any] | None], str]
"""A completion for a chat; a JSON schema, if given, is what a server is asked to honour."""
SCHEMAS = {"engram": Engram, "recall": RecallPlan}


def local_generator(config, adapter: str | None, max_new_tokens: int) -> Generate:
    """Greedy generation with the base model, or the base with a PEFT adapter on it."""
    import torch

    tokenizer, model = load_base(config)
    if adapter:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, adapter)
    model.eval()

    def generate(chat: list[dict[str, str]], schema: dict[str, Any] | None = None) -> str:
        enc = tokenizer.apply_chat_template(
            chat, add_generation_prompt=True, return_tensors="pt", return_dict=True
        )
        with torch.no_grad():
            out = model.generate(
                **enc,
                max_new_tokens=max_new_tokens,
                do_sample=False,
                pad_token_id=tokenizer.pad_token_id,
            )
        return tokenizer.decode(out[0][enc["input_ids"].shape[1] :], skip_special_tokens=True)

    return generate


def endpoint_generator(
    url: str, model: str, role: str, guardrails: bool, extra: dict[str, Any] | None = None
) -> Generate:
    """Chat completions from an OpenAI-compatible server (llama.cpp, vLLM, ...)."""
    import httpx

    client = httpx.Client(base_url=url.rstrip("/"), timeout=120)

    def generate(chat: list[dict[str, str]], schema: dict[str, Any] | None = None) -> str:
        body: dict[str, Any] = {"model": model, "messages": chat, "temperature": 0, **(extra or {})}
        if guardrails:
            schema = schema or SCHEMAS[role].model_json_schema()
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": role, "schema": schema},
            }
        r = client.post("/chat/completions", json=body)
        r.raise_for_status()
        return r.json()["choices"][0]["message"]["content"] or ""

    return generate


def served_generator(config, lora: str | None, role: str, guardrails: bool, max_new_tokens: int):
    """What the agent serves by default: the config's GGUF in the local llama.cpp server,
    with ``lora`` (a GGUF LoRA, ``python -m finetune.serve gguf``) switched on for ``role``."""
    from finetune.train import gguf_path
    from mags_langgraph.llm.local import LocalServer
    from mags_langgraph.settings import AgentSettings

    if not config.model.gguf:
        raise MagsError("model 'llama.cpp' needs model.gguf in the config (the served GGUF)")
    adapters = {role: Path(lora)} if lora else {}
    if lora and not Path(lora).is_file():
        raise MagsError(f"no GGUF LoRA at {lora}: convert one with python -m finetune.serve gguf")
    server = LocalServer(
        gguf_path(config.model.gguf), AgentSettings(local_ctx=2048), False, adapters
    )
    server.start()
    extra: dict[str, Any] = {"max_tokens": max_new_tokens}
    if adapters:
        extra["lora"] = server.lora_for(role)
    generate = endpoint_generator(server.base_url, "local", role, guardrails, extra)
    generate.server = server  # type: ignore[attr-defined]  # kept alive while it is used
    return generate


def score(role: str, examples: Sequence[Any], texts: Sequence[str], rc: RewardConfig) -> dict:
    """The role's metrics over ``texts`` (one completion per example)."""
    answers = [parse_completion(t, role).answer for t in texts]
    valid = [a is not None for a in answers]
    out: dict[str, Any] = {"examples": len(texts), "format_valid": sum(valid) / len(texts)}
    if role == "engram":
        tp = n_pred = n_gold = invented = quiet = 0.0
        for ex, text, answer in zip(examples, texts, answers, strict=True):
            gold = len(ex.output.facts)
            n_gold += gold
            if answer is None:
                continue
            pred = len(answer.facts)
            precision, _, _ = triplet_prf(text, ex, rc)
            n_pred += pred
            tp += precision * pred  # matched triplets
            quiet += not gold and not pred
            report = grounding_report(text, ex)
            invented += report.triplets - report.grounded if report else 0
        no_facts = sum(not ex.output.facts for ex in examples)
        precision = tp / n_pred if n_pred else 0.0
        recall_ = tp / n_gold if n_gold else 0.0
        f1 = 2 * precision * recall_ / (precision + recall_) if tp else 0.0
        out.update(
            triplets=int(n_pred),
            precision=precision,
            recall=recall_,
            f1=f1,
            invented_share=invented / n_pred if n_pred else 0.0,
            no_fact_turns_left_empty=quiet / no_facts if no_facts else None,
        )
    else:
        decisions = useful = 0.0
        for ex, text, plan in zip(examples, texts, answers, strict=True):
            if plan is not None:
                decisions += plan.recall == ex.output.recall
                useful += usefulness_score(text, ex, rc)
        out.update(decision_accuracy=decisions / len(texts), usefulness=useful / len(texts))
    return out


def grounded_schema(example: Any) -> dict[str, Any]:
    """The engram schema the agent sends for this turn (``AgentSettings.engram_grounded``)."""
    inp = example.input
    names = [
        inp.speaker,
        inp.user,
        inp.date,
        *(x for f in inp.facts for x in (f.subject, f.object)),
    ]
    return grounded_engram_schema(inp.turn, names)


def evaluate(
    role, examples, generators: dict[str, Generate], rc: RewardConfig, grounded: bool = False
) -> dict:
    results = {}
    for name, generate in generators.items():
        texts, t0 = [], time.perf_counter()
        for ex in tqdm(examples, desc=name, unit="example"):
            schema = grounded_schema(ex) if grounded and role == "engram" else None
            texts.append(generate(messages(ex), schema))
        results[name] = {**score(role, examples, texts, rc), "seconds": time.perf_counter() - t0}
        results[name]["samples"] = texts[:5]
    return results


def print_table(role: str, results: dict[str, dict]) -> None:
    keys = [k for k in next(iter(results.values())) if k not in ("samples",)]
    table = Table(title=f"{role}: held-out test split")
    table.add_column("metric")
    for name in results:
        table.add_column(name, justify="right")
    for k in keys:
        cells = [results[n][k] for n in results]
        table.add_row(k, *[f"{c:.3f}" if isinstance(c, float) else str(c) for c in cells])
    Console().print(table)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m finetune.evaluate", description=__doc__)
    parser.add_argument("--role", choices=("engram", "recall"), required=True)
    parser.add_argument("--config", default="finetune/configs/cpu-smollm2.toml")
    parser.add_argument(
        "--model",
        action="append",
        required=True,
        help="base | DIR (PEFT adapter) | URL | llama.cpp | llama.cpp:LORA.gguf",
    )
    parser.add_argument("--endpoint-model", default="default", help="model name for a URL")
    parser.add_argument("--guardrails", action="store_true", help="JSON schema (endpoints)")
    parser.add_argument(
        "--grounded",
        action="store_true",
        help="engram: the schema's subjects and objects limited to the turn's phrases and the "
        "given names, as the agent sends it (implies --guardrails)",
    )
    parser.add_argument("--split", default="test")
    parser.add_argument("--source", default="", help="only examples whose source starts so")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--max-new-tokens", type=int, default=160)
    parser.add_argument("--out", help="JSON (default benchmarks/results/finetune_<role>.json)")
    args = parser.parse_args(argv)
    args.guardrails = args.guardrails or args.grounded
    try:
        config = load_train_config(args.config)
        rc = load_reward_config(config.relative(config.rewards.config))
        examples = [
            e for e in load_split(config, args.role, args.split) if e.source.startswith(args.source)
        ]
        examples = examples[: args.limit] if args.limit else examples
        if not examples:
            raise MagsError(f"no {args.role} {args.split} examples match --source {args.source!r}")
        generators: dict[str, Generate] = {}
        for m in args.model:
            if m == "llama.cpp" or m.startswith("llama.cpp:"):
                lora = m.partition(":")[2] or None
                generators[m] = served_generator(
                    config, lora, args.role, args.guardrails, args.max_new_tokens
                )
            elif m.startswith("http"):
                generators[m] = endpoint_generator(
                    m, args.endpoint_model, args.role, args.guardrails
                )
            else:
                generators[m] = local_generator(
                    config, None if m == "base" else m, args.max_new_tokens
                )
        results = evaluate(args.role, examples, generators, rc, args.grounded)
    except MagsError as e:
        parser.exit(2, f"error: {e}\n")
    print_table(args.role, results)
    out = Path(args.out or f"benchmarks/results/finetune_{args.role}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"role": args.role, "split": args.split, "source": args.source, "limit": args.limit}
    info = {**meta, "guardrails": args.guardrails, "grounded": args.grounded}
    info["machine"] = platform.platform()
    info["commit"] = git_commit()
    out.write_text(json.dumps({**info, "results": results}, indent=2))
    print(f"wrote {out}")
    return 0


def git_commit() -> str:
    """The commit the scores were taken at ("+dirty": tracked files changed), for the JSON."""
    cmd = ["git", "describe", "--always", "--dirty=+dirty"]
    here = Path(__file__).parent
    return subprocess.run(cmd, capture_output=True, text=True, cwd=here).stdout.strip()


if __name__ == "__main__":
    raise SystemExit(main())
