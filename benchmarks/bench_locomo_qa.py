"""bench_locomo_qa: LoCoMo questions answered through the agent's real turn path, judged by an
LLM with the published J protocol, plus token F1 and BLEU-1.

    python benchmarks/bench_locomo_qa.py [../shared/data/locomo] [--conversations conv-26 ...]
        [--limit N] [--engine arcadedb|neo4j|both]
        [--base-url URL --model NAME --api-key KEY]              # the answering endpoint
        [--judge-base-url URL --judge-model NAME --judge-api-key KEY]   # default: the same

Storing: every turn of a conversation is stored as an episode in its own namespace, as
bench_locomo.py does (speaker, the session's date as event time, image captions appended),
with ``load`` imported from it: categories 1-4 only (5, adversarial, is left out by the
protocol), each with its evidence turns in the conversation.

The store and the loop run at the conversation's time (``graph_db.clock``): the questions
are asked a minute after its last turn, so the respond prompt's "Today is" is that day.

Answering is ``MemoryLoop``'s own path (mags_langgraph/loop.py), nothing re-implemented:
``before`` routes the question (the rules router) and recalls for it (``recall``: MAGS recall,
asker, the filtering of past questions), ``respond_prompt`` puts the numbered memories in the
respond role's system prompt and ``LLMs`` asks the respond role. The loop has no budget for the
memories in a prompt (``recall_k`` counts memories, not tokens), so the benchmark keeps the
best-ranked memories whose lines, as ``prompts.memory_lines`` writes them into the prompt, fit
``--memory-tokens`` (2,000). They are counted with tiktoken's cl100k_base where its encoding
loads (the unit of the Mem0 paper's "memory tokens"); where it cannot be fetched (this
machine) and the local server answers, with the served model's own tokenizer (llama.cpp's
/tokenize), so the model reads at most 2,000 of its own tokens of memories; else with the
MiniLM WordPiece the store ships (it counts ~0.9x of SmolLM2's tokens on LoCoMo's memory
lines: a looser cap). The JSON names the counter used. ``--recall-k`` (25) is the loop's
``recall_k``: how many memories recall hands over before the cap.

Questions leave no trace in memory, so answering one cannot change what the next one sees:
``before`` is called with ``store=False`` (the question is not stored; ``after``, which would
store the answer, reinforce the memories it used and extract facts, is not called), and the
loop's graph is a view whose ``recall`` passes ``fire=False`` (the recall touches no memory
and links no anchors: no co-firing). The namespace's node and edge counts are read before the
first question and after the last, and both are in the JSON (``unchanged``).

The judge follows the LLM-as-a-Judge protocol of the Mem0 paper (Chhikara et al. 2025, "Mem0:
Building Production-Ready AI Agents with Scalable Long-Term Memory", arXiv 2504.19413,
Section 3.2 and Appendix A; the prompt and call of mem0ai/mem0's
evaluation/metrics/llm_judge.py), in our own words: the judge sees the question, the gold
answer and the generated answer, is told to be generous (the same topic counts; a date in
another format or as a relative reference to the same day or period counts), gives a
one-sentence reason and then CORRECT or WRONG as JSON (``response_format`` json_object,
temperature 0, one call per question). J is the share judged CORRECT, per category and
overall. A reply without a JSON object holding one of the two labels (any case) counts as
WRONG and is flagged (``judge_flagged``); nothing is retried. F1 and BLEU-1 compare the
answer with the gold answer after LoCoMo's normalisation (lowercase, punctuation, articles and
"and" removed; no stemming): F1 over the token multisets (SQuAD), BLEU-1 the clipped unigram
precision times the brevity penalty. They are computed in the style of the published ones,
not bit for bit (mem0's F1 uses token sets and nltk tokens).

Endpoints: the agent's rule (``LLMs``): ``--base-url`` / ``--api-key`` / ``--model`` override
MAGS_LLM_BASE_URL / MAGS_LLM_API_KEY or OPENAI_API_KEY / MAGS_LLM_MODEL; with no URL and no
key at all, the local llama.cpp server the agent layer starts (``mags_langgraph.llm.local``;
where the hub cannot be reached, as here, the SmolLM2-135M fallback: its numbers mean nothing
about memory, and the run says so). The judge defaults to the answering endpoint and model.
Per question it prints the label, F1, BLEU-1, and the model calls, prompt / completion tokens
(the responses' usage metadata) and latency of the answer and of the judge; then a table per
category and the cost lines. Writes benchmarks/results/bench_locomo_qa.json: the machine,
commit, endpoints (names, never keys), settings, scores and every question's record.
"""

from __future__ import annotations

import argparse
import json
import string
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import cache
from math import exp
from pathlib import Path
from typing import Any

import engines
import httpx
import numpy as np
from bench_locomo import CATEGORIES, conversation_paths, load
from bench_store import git_commit, log_console, machine
from langchain_core.messages import HumanMessage
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from graph_db import LiquidGraph, clock
from mags_langgraph import prompts
from mags_langgraph.llm import LLMs, parse_json
from mags_langgraph.llm.parse import ParseError, strip_thinking
from mags_langgraph.loop import MemoryLoop
from mags_langgraph.settings import AgentSettings

ROOT = Path(__file__).resolve().parent
DATA = ROOT.parent.parent / "shared" / "data" / "locomo"
MEMORY_TOKENS = 2000
RECALL_K = 25
JUDGE_ROLE = "reconcile"  # the judge's own LLMs serve no agent: a verdict role's token limit
LABELS = ("CORRECT", "WRONG")

JUDGE_PROMPT = """You grade one answer of a memory test. Two people talked over many sessions;
the question asks about something from their conversations. You get the question, the gold
answer (the truth, usually short) and a generated answer (possibly much longer).

Be generous. The generated answer is CORRECT when it is about the same thing as the gold
answer: it may be longer, worded differently or add details, as long as it touches the same
topic. For a question about time the gold answer is a date, month, year or period: the
generated answer is CORRECT when it points to the same date or period, whatever its format
("7 May" or "May 7th") or when it says it relatively ("last Tuesday", "the week before").
Otherwise it is WRONG.

Question: {question}
Gold answer: {gold}
Generated answer: {answer}

Give one short sentence of reasoning, then the label. Reply with a JSON object only:
{{"reasoning": "...", "label": "CORRECT"}} or {{"reasoning": "...", "label": "WRONG"}}.
Never name both labels."""


# -- scoring ------------------------------------------------------------------------------
_PUNCT = str.maketrans("", "", string.punctuation)
_DROP = {"a", "an", "the", "and"}  # LoCoMo's normalisation drops "and" with the articles


def normalize(text: object) -> list[str]:
    """Tokens of an answer as LoCoMo and SQuAD score them: lowercase, punctuation removed,
    articles (and "and") dropped, split on whitespace."""
    words = str(text).lower().translate(_PUNCT).split()
    return [w for w in words if w not in _DROP]


def token_f1(prediction: object, gold: object) -> float:
    """F1 of the shared tokens (multiset overlap) of the normalised answer and gold."""
    pred, ref = normalize(prediction), normalize(gold)
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def bleu1(prediction: object, gold: object) -> float:
    """Sentence BLEU-1 against the one gold answer: clipped unigram precision times the
    brevity penalty exp(1 - r/c) when the answer is shorter than the gold."""
    pred, ref = normalize(prediction), normalize(gold)
    if not pred or not ref:
        return 0.0
    clipped = sum((Counter(pred) & Counter(ref)).values())
    penalty = 1.0 if len(pred) > len(ref) else exp(1 - len(ref) / len(pred))
    return penalty * clipped / len(pred)


class _Verdict(BaseModel):
    label: str


def parse_label(text: str) -> tuple[str, bool]:
    """The judge's label and whether it was readable: the first JSON object in the reply
    (prose, code fences and ``<think>`` blocks around it are skipped) with a ``label`` of
    CORRECT or WRONG in any case. Anything else is ("WRONG", False): counted as wrong and
    flagged, never a crash."""
    try:
        verdict = parse_json(strip_thinking(text or ""), _Verdict)
    except ParseError:
        return "WRONG", False
    label = verdict.label.strip().strip(".!").upper()
    return (label, True) if label in LABELS else ("WRONG", False)


# -- the memory budget --------------------------------------------------------------------
Count = Callable[[str], int]


@cache
def _wordpiece() -> Any:
    from tokenizers import Tokenizer

    from graph_db.embeddings import _minilm_tokenizer

    tok = Tokenizer.from_file(_minilm_tokenizer())
    tok.no_padding()  # its file pads and cuts to 128 for the embedder: count the text
    tok.no_truncation()
    return tok


def wordpiece_tokens(text: str) -> int:
    """Tokens of ``text`` by MiniLM's WordPiece (no special tokens)."""
    return len(_wordpiece().encode(text, add_special_tokens=False).ids) if text else 0


def token_counter(llms: LLMs) -> tuple[str, Count]:
    """How the memory budget is counted: tiktoken's cl100k_base where its encoding loads (the
    unit of the Mem0 paper's memory tokens); else, on the local server, the served model's
    own tokenizer (llama.cpp's /tokenize); else MiniLM's WordPiece (offline, ~0.9x of
    SmolLM2's count on LoCoMo's memory lines)."""
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base")
        return "tiktoken cl100k_base", lambda text: len(encoding.encode(text))
    except Exception:  # the encoding is fetched once from the web: not reachable here
        pass
    if llms.local is not None:
        root = llms.local.base_url.removesuffix("/v1")

        def served(text: str) -> int:
            reply = httpx.post(f"{root}/tokenize", json={"content": text}, timeout=30)
            return len(reply.raise_for_status().json()["tokens"])

        return f"the served model's own ({llms.local.gguf.name}, llama.cpp /tokenize)", served
    return "all-MiniLM-L6-v2 WordPiece", wordpiece_tokens


def within_budget(memories: Sequence[Any], budget: int, count: Count) -> tuple[list[Any], int]:
    """The best-ranked memories whose lines in the prompt (``prompts.memory_lines``) fit
    ``budget`` tokens by ``count``, and their count."""
    kept: list[Any] = []
    used = 0
    for m in memories:
        tokens = count(prompts.memory_lines([*kept, m]))
        if tokens > budget:
            break
        kept.append(m)
        used = tokens
    return kept, used


class ReadOnlyRecall:
    """The loop's graph for the benchmark: every call goes to ``graph``, and ``recall``
    leaves no trace (``fire=False``: no memory touched, no anchors linked)."""

    def __init__(self, graph: LiquidGraph) -> None:
        self._graph = graph

    def recall(self, *args: Any, **kwargs: Any) -> Any:
        return self._graph.recall(*args, **{**kwargs, "fire": False})

    def __getattr__(self, name: str) -> Any:
        return getattr(self._graph, name)


# -- endpoints ----------------------------------------------------------------------------
def endpoint_settings(
    base_url: str | None, model: str | None, api_key: str | None, **over: Any
) -> AgentSettings:
    """The agent's settings for one endpoint: what is given overrides the environment."""
    given: dict[str, Any] = {}
    if base_url:
        given["llm_base_url"] = base_url
    if api_key:
        given["llm_api_key"] = api_key
    if model:
        given |= {"llm_model": model, "respond_model": model, "reconcile_model": model}
    return AgentSettings(**given, **over)


def describe(llms: LLMs, role: str) -> dict[str, Any]:
    """Where a role's calls go, for the report (no key)."""
    llms.model(role)  # builds it (and starts the local server when that is the endpoint)
    if llms.local is not None:
        name = "SmolLM2-135M-Instruct (fallback)" if llms.local.fallback else llms.local.gguf.name
        return {
            "endpoint": "local llama.cpp (xllamacpp)",
            "model": name,
            "fallback": llms.local.fallback,
        }
    s = llms.settings
    return {
        "endpoint": s.llm_base_url or "OpenAI API (default base URL)",
        "model": s.model_for(role),
        "fallback": False,
    }


def _usage(llms: LLMs, role: str) -> tuple[int, int, int, float]:
    u = llms.usage.snapshot().get(role)
    return (u.calls, u.prompt_tokens, u.completion_tokens, u.seconds) if u else (0, 0, 0, 0.0)


def _delta(llms: LLMs, role: str, before: tuple[int, int, int, float]) -> dict[str, Any]:
    after = _usage(llms, role)
    calls, prompt, completion, seconds = (a - b for a, b in zip(after, before, strict=True))
    return {
        "calls": calls,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "model_s": seconds,
    }


# -- one conversation ---------------------------------------------------------------------
def counts(graph: LiquidGraph, ns: str) -> dict[str, Any]:
    """Nodes per label and edges per type of ``ns`` (edge weights left out: they decay)."""
    st = graph.stats(ns)
    return {"nodes": dict(st["nodes"]), "edges": {t: e["count"] for t, e in st["edges"].items()}}


def judge(judge_llms: LLMs, question: str, gold: str, answer: str) -> tuple[str, bool, str]:
    """(label, readable, the judge's raw reply); an error of the call counts as WRONG."""
    prompt = JUDGE_PROMPT.format(question=question, gold=gold, answer=answer)
    try:
        raw = judge_llms.complete(
            JUDGE_ROLE,
            [HumanMessage(prompt)],
            temperature=0.0,
            response_format={"type": "json_object"},
        )
    except Exception as e:  # the endpoint failed: the question is judged wrong, flagged
        return "WRONG", False, f"error: {type(e).__name__}: {e}"
    label, ok = parse_label(raw)
    return label, ok, raw


def answer_question(
    loop: MemoryLoop, judge_llms: LLMs, ns: str, q: dict, budget: int, count: Count
) -> dict[str, Any]:
    """One question through before (no store) and respond, then the judge and the metrics."""
    question, gold = q["question"], str(q["answer"])
    llms = loop.llms
    started = time.perf_counter()
    turn = loop.before(ns, question, store=False)
    recalled = len(turn.memories)
    memories, memory_tokens = within_budget(turn.memories, budget, count)
    turn = turn.model_copy(update={"memories": memories})
    before = _usage(llms, "respond")
    t0 = time.perf_counter()
    answer, error = "", None
    try:
        answer = loop.respond(turn, [HumanMessage(question)])
    except Exception as e:  # the endpoint failed: an empty answer, judged as it is
        error = f"{type(e).__name__}: {e}"
    answer_s = time.perf_counter() - t0
    answered = _delta(llms, "respond", before)
    total_s = time.perf_counter() - started
    before = _usage(judge_llms, JUDGE_ROLE)
    t0 = time.perf_counter()
    if answer.strip():
        label, readable, raw = judge(judge_llms, question, gold, answer)
    else:
        label, readable, raw = "WRONG", True, "(no answer: not sent to the judge)"
    judged = _delta(judge_llms, JUDGE_ROLE, before)
    return {
        "question": question,
        "category": q["category"],
        "category_name": CATEGORIES[q["category"]],
        "gold": gold,
        "evidence": q.get("evidence", []),
        "answer": answer,
        "answer_error": error,
        "label": label,
        "judge_flagged": not readable,
        "judge_reply": raw,
        "f1": token_f1(answer, gold),
        "bleu1": bleu1(answer, gold),
        "memories": [m.id for m in memories],
        "memories_recalled": recalled,  # before the budget
        "memory_tokens": memory_tokens,
        "recall_ms": turn.stages_ms.get("recall", 0.0),
        "answer_latency_s": answer_s,
        "total_latency_s": total_s,  # recall, budget and answer: what a user waits for
        "answer_usage": answered,
        "judge_latency_s": time.perf_counter() - t0,
        "judge_usage": judged,
    }


def run_conversation(
    graph: LiquidGraph,
    path: Path,
    answer_llms: LLMs,
    judge_llms: LLMs,
    *,
    ns: str | None = None,
    limit: int | None = None,
    budget: int = MEMORY_TOKENS,
    recall_k: int = RECALL_K,
    count: Count | None = None,
    report: Any = None,
) -> tuple[list[dict], dict]:
    """Store one conversation's turns in ``ns`` (default ``locomo-<conv>``, cleared first),
    then answer its first ``limit`` questions; returns the records and the conversation's
    facts (sizes before and after answering, timings). ``report(record)`` is called after
    each question."""
    conv = path.stem
    turns, qa = load(path)
    qa = qa[:limit] if limit else qa
    ns = ns or f"locomo-{conv}"
    graph.forget_namespace(ns)
    episodes = [
        {
            "id": f"{conv}:{t['id']}",
            "text": t["text"],
            "speaker": t["speaker"],
            "session_id": f"session_{t['session']}",
            "ts": t["ts"],
        }
        for t in turns
    ]
    # the questions are asked just after the conversation's last turn: "today" in the
    # prompts is that day, not the day of the run (relative dates in the answers)
    asked_at = max(t["ts"] for t in turns) + 60
    t0 = time.perf_counter()
    with clock.at(asked_at):
        graph.ingest(ns, episodes, batch_size=50, progress=report is not None)
    ingest_s = time.perf_counter() - t0
    settings = answer_llms.settings.model_copy(update={"recall_k": recall_k})
    count = count or token_counter(answer_llms)[1]
    loop = MemoryLoop(ReadOnlyRecall(graph), answer_llms, settings)  # type: ignore[arg-type]
    graph.flush()
    size_before = counts(graph, ns)
    records = []
    for i, q in enumerate(qa):
        with clock.at(asked_at):
            answered = answer_question(loop, judge_llms, ns, q, budget, count)
        record = {"conversation": conv, "index": i, **answered}
        records.append(record)
        if report is not None:
            report(record)
    graph.flush()
    size_after = counts(graph, ns)
    meta = {
        "turns": len(turns),
        "questions": len(qa),
        "ingest_s": ingest_s,
        "size_before": size_before,
        "size_after": size_after,
        "unchanged": size_before == size_after,
    }
    return records, meta


# -- summary ------------------------------------------------------------------------------
def scores(records: Sequence[dict]) -> dict[str, dict[str, Any]]:
    """J, F1, BLEU-1, n and judge replies flagged, per category name and overall."""
    groups: dict[str, list[dict]] = {name: [] for name in CATEGORIES.values()}
    for r in records:
        groups[r["category_name"]].append(r)
    groups["overall"] = list(records)
    return {
        name: {
            "n": len(rs),
            "J": float(np.mean([r["label"] == "CORRECT" for r in rs])),
            "F1": float(np.mean([r["f1"] for r in rs])),
            "BLEU1": float(np.mean([r["bleu1"] for r in rs])),
            "judge_flagged": sum(r["judge_flagged"] for r in rs),
        }
        for name, rs in groups.items()
        if rs
    }


def costs(records: Sequence[dict]) -> dict[str, Any]:
    """Calls, tokens and latency of the answers and of the judge, totals and per question."""

    def side(usage: str, latency: str) -> dict[str, Any]:
        calls = sum(r[usage]["calls"] for r in records)
        prompt = sum(r[usage]["prompt_tokens"] for r in records)
        completion = sum(r[usage]["completion_tokens"] for r in records)
        lat = [r[latency] for r in records]
        n = max(1, len(records))
        return {
            "calls": calls,
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "calls_per_question": calls / n,
            "prompt_tokens_per_question": prompt / n,
            "completion_tokens_per_question": completion / n,
            "latency_s_p50": _pct(lat, 50),
            "latency_s_p95": _pct(lat, 95),
        }

    memory = [r["memory_tokens"] for r in records]
    return {
        "answer": side("answer_usage", "answer_latency_s"),
        "judge": side("judge_usage", "judge_latency_s"),
        "question_latency_s_p50": _pct([r["total_latency_s"] for r in records], 50),
        "question_latency_s_p95": _pct([r["total_latency_s"] for r in records], 95),
        "recall_ms_p50": _pct([r["recall_ms"] for r in records], 50),
        "recall_ms_p95": _pct([r["recall_ms"] for r in records], 95),
        "memory_tokens_mean": float(np.mean(memory)) if memory else 0.0,
        "memory_tokens_max": max(memory, default=0),
        "memories_mean": float(np.mean([len(r["memories"]) for r in records])) if records else 0,
    }


def _pct(xs: Sequence[float], q: float) -> float:
    return float(np.percentile(xs, q)) if len(xs) else 0.0


def question_line(r: dict) -> str:
    a, j = r["answer_usage"], r["judge_usage"]
    flag = " (flagged)" if r["judge_flagged"] else ""
    if r["answer_error"]:  # a failed call is not in the usage: the record has the error
        flag += f" (answer failed: {r['answer_error'][:60]})"
    return (
        f"{r['conversation']} #{r['index']:<3} {r['category_name']:<11} {r['label']:<7}{flag} "
        f"F1 {r['f1']:.2f} B1 {r['bleu1']:.2f} | answer {a['calls']} call "
        f"{a['prompt_tokens']}+{a['completion_tokens']} tok {r['answer_latency_s']:.1f} s | "
        f"judge {j['calls']} call {j['prompt_tokens']}+{j['completion_tokens']} tok "
        f"{r['judge_latency_s']:.1f} s | recall {r['recall_ms']:.0f} ms, "
        f"{len(r['memories'])}/{r['memories_recalled']} memories {r['memory_tokens']} tok"
    )


def print_summary(console: Console, engine: str, run: dict, answer: dict, judged: dict) -> None:
    table = Table(
        title=f"LoCoMo QA on {engine}: answers by {answer['model']}, judged by {judged['model']}"
    )
    for col in ("category", "n", "J", "F1", "BLEU-1", "judge flagged"):
        table.add_column(col, justify="left" if col == "category" else "right")
    for name, row in run["scores"].items():
        table.add_row(
            name,
            str(row["n"]),
            f"{row['J']:.3f}",
            f"{row['F1']:.3f}",
            f"{row['BLEU1']:.3f}",
            str(row["judge_flagged"]),
        )
    console.print(table)
    c = run["costs"]
    for side in ("answer", "judge"):
        s = c[side]
        console.print(
            f"{side}: {s['calls']} model calls ({s['calls_per_question']:.2f} per question), "
            f"{s['prompt_tokens']:,} prompt + {s['completion_tokens']:,} completion tokens "
            f"({s['prompt_tokens_per_question']:.0f} + {s['completion_tokens_per_question']:.0f}"
            f" per question), latency p50 {s['latency_s_p50']:.2f} s, p95 "
            f"{s['latency_s_p95']:.2f} s"
        )
    console.print(
        f"per question (recall + answer): p50 {c['question_latency_s_p50']:.2f} s, p95 "
        f"{c['question_latency_s_p95']:.2f} s; recall p50 {c['recall_ms_p50']:.0f} ms, p95 "
        f"{c['recall_ms_p95']:.0f} ms; memories in the prompt {c['memories_mean']:.1f}, "
        f"{c['memory_tokens_mean']:.0f} tokens on average (max {c['memory_tokens_max']})"
    )
    failed = sum(bool(r["answer_error"]) for r in run["records"])
    console.print(f"answers that failed (endpoint error or timeout; judged WRONG): {failed}")
    same = all(m["unchanged"] for m in run["conversations"].values())
    console.print(f"stored memories unchanged by answering: {same}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "data",
        type=Path,
        nargs="?",
        default=DATA,
        help=f"folder with LoCoMo conv-*.json files (default {DATA})",
    )
    ap.add_argument("--conversations", nargs="*", help="e.g. conv-26 (default: all)")
    ap.add_argument("--limit", type=int, help="the first N questions of each conversation")
    ap.add_argument("--base-url", help="answering endpoint (default MAGS_LLM_BASE_URL)")
    ap.add_argument("--model", help="answering model (default MAGS_LLM_MODEL)")
    ap.add_argument("--api-key", help="(default MAGS_LLM_API_KEY or OPENAI_API_KEY)")
    ap.add_argument("--judge-base-url", help="judge endpoint (default: the answering one)")
    ap.add_argument("--judge-model", help="judge model (default: the answering one)")
    ap.add_argument("--judge-api-key", help="(default: the answering one's)")
    ap.add_argument(
        "--memory-tokens",
        type=int,
        default=MEMORY_TOKENS,
        help=f"budget of recalled memories per answer ({MEMORY_TOKENS})",
    )
    ap.add_argument(
        "--recall-k",
        type=int,
        default=RECALL_K,
        help=f"memories recall hands over before the budget ({RECALL_K})",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "bench_locomo_qa.json")
    engines.add_options(ap)
    ap.set_defaults(engine="arcadedb")
    args = ap.parse_args()
    paths = conversation_paths(args.data, args.conversations)
    console = log_console(width=200)  # a log file: keep the lines whole
    notice = lambda text: console.print(text, style="yellow")  # noqa: E731
    answer_llms = LLMs(endpoint_settings(args.base_url, args.model, args.api_key), notice=notice)
    judge_llms = LLMs(
        endpoint_settings(
            args.judge_base_url or args.base_url,
            args.judge_model or args.model,
            args.judge_api_key or args.api_key,
            llm_temperature=0.0,
        ),
        notice=notice,
    )
    answering, judging = describe(answer_llms, "respond"), describe(judge_llms, JUDGE_ROLE)
    tiny = answering["fallback"] or judging["fallback"]
    tokenizer, count = token_counter(answer_llms)
    if tiny:
        console.print(
            "The tiny local fallback model answers and/or judges: these numbers say "
            "nothing about MAGS; run it against a real endpoint (see the README).",
            style="bold yellow",
        )
    runs: dict[str, dict] = {}
    for name in engines.selected(args):
        t0 = time.perf_counter()
        records: list[dict] = []
        per_conv: dict[str, dict] = {}
        with (
            tempfile.TemporaryDirectory(prefix=f"mags-locomo-qa-{name}-") as home,
            engines.running(name, Path(home), args) as engine,
            LiquidGraph(engine.settings) as graph,
        ):
            for path in paths:
                recs, meta = run_conversation(
                    graph,
                    path,
                    answer_llms,
                    judge_llms,
                    limit=args.limit,
                    budget=args.memory_tokens,
                    recall_k=args.recall_k,
                    count=count,
                    report=lambda r: console.print(question_line(r), highlight=False),
                )
                records += recs
                per_conv[path.stem] = meta
                if engine.external:  # a server of others: leave nothing behind
                    graph.forget_namespace(f"locomo-{path.stem}")
            info = engine.info
        runs[name] = {
            "info": info,
            "wall_s": time.perf_counter() - t0,
            "records": records,
            "conversations": per_conv,
            "scores": scores(records),
            "costs": costs(records),
        }
        print_summary(console, name, runs[name], answering, judging)
        console.print(f"{name}: {runs[name]['wall_s']:.0f} s")
    result = {
        "machine": machine(),
        "commit": git_commit(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "data": str(args.data),
        "meaningful": not tiny,
        "answer": answering,
        "judge": judging,
        "settings": {
            "memory_tokens": args.memory_tokens,
            "recall_k": args.recall_k,
            "limit": args.limit,
            "memory_tokens_counted_by": tokenizer,
            "judge_temperature": 0.0,
            "answer_temperature": answer_llms.settings.llm_temperature,
            "respond_max_tokens": answer_llms.settings.respond_max_tokens,
        },
        "engines": {e: r["info"] for e, r in runs.items()},
        "wall_s": {e: r["wall_s"] for e, r in runs.items()},
        "scores": {e: r["scores"] for e, r in runs.items()},
        "costs": {e: r["costs"] for e, r in runs.items()},
        "conversations": {e: r["conversations"] for e, r in runs.items()},
        "records": {e: r["records"] for e, r in runs.items()},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
