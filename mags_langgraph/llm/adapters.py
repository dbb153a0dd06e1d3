"""LoRA adapters for the local server, one per role: ``<MAGS_HOME>/adapters/<role>.gguf``
(``python -m finetune.serve gguf --install`` writes them).

llama.cpp will not start on an adapter that does not fit the served model, so each one is
checked against the base first (GGUF headers only, memory-mapped) and a misfit is left out
with a notice instead of taking the server down.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

SUFFIXES = (".lora_a", ".lora_b")


def _field(reader: Any, key: str) -> Any:
    field = reader.fields.get(key)
    return None if field is None else field.contents()


def lora_fits(lora: Path, base: Path, reader: Any = None) -> str | None:
    """None when ``lora`` is a GGUF LoRA whose every tensor pair fits a tensor of ``base``
    (``reader``: base's ``GGUFReader``, when several adapters are checked against it); else
    the reason it does not."""
    from gguf import GGUFReader

    try:
        adapter = GGUFReader(str(lora))
        model = reader or GGUFReader(str(base))
    except (OSError, ValueError) as e:
        return f"{lora.name} is not a readable GGUF ({e})"
    if _field(adapter, "general.type") != "adapter" or _field(adapter, "adapter.type") != "lora":
        return f"{lora.name} is not a GGUF LoRA adapter"
    arch, base_arch = _field(adapter, "general.architecture"), _field(model, "general.architecture")
    if arch != base_arch:
        return f"{lora.name} is for a {arch} model, the server runs a {base_arch} model"
    shapes = {t.name: tuple(int(n) for n in t.shape) for t in model.tensors}  # ggml order (ne)
    pairs: dict[str, dict[str, tuple[int, ...]]] = {}
    for t in adapter.tensors:
        target, suffix = t.name[:-7], t.name[-7:]
        if suffix not in SUFFIXES:
            return f"{lora.name} holds {t.name}, which is not a LoRA tensor"
        pairs.setdefault(target, {})[suffix] = tuple(int(n) for n in t.shape)
    if not pairs:
        return f"{lora.name} holds no LoRA tensors"
    for target, pair in pairs.items():
        a, b, w = pair.get(".lora_a"), pair.get(".lora_b"), shapes.get(target)
        if a is None or b is None:
            return f"{lora.name}: {target} lacks its lora_a or lora_b"
        if w is None:
            return f"{lora.name} adapts {target}, which {base.name} does not have"
        if a[0] != w[0] or b[1] != w[1] or a[1] != b[0]:
            return f"{lora.name}: {target} is {w}, its LoRA pair {a} x {b} does not fit"
    return None


def role_adapters(
    folder: Path, base: Path, roles: Iterable[str], notice: Callable[[str], Any] = print
) -> dict[str, Path]:
    """The adapters in ``folder`` that fit ``base``, by role (``<role>.gguf``). The base is
    parsed once, and only when there is an adapter (it takes seconds: its vocabulary)."""
    from gguf import GGUFReader

    found: dict[str, Path] = {}
    model = None
    for role in roles:
        path = folder / f"{role}.gguf"
        if not path.is_file():
            continue
        model = model or GGUFReader(str(base))
        why = lora_fits(path, base, model)
        if why is None:
            found[role] = path
        else:
            notice(f"Notice: not using the {role} adapter: {why}. Retrain or reconvert it.")
    return found


def adapters_folder(settings: Any, home: Path, given: Path | None = None) -> Path:
    """Where the local server looks for role adapters: ``MAGS_LOCAL_ADAPTERS``, else the
    folder a caller gives, else ``<MAGS_HOME>/adapters``."""
    return settings.local_adapters or given or home / "adapters"
