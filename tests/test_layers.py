"""The three layers (graph_db < mags_langgraph < finetune) and what each may not import,
checked by import-linter with the contracts in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")


def lint(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT), "--config", str(config), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_layer_contracts_hold():
    run = lint(ROOT / "pyproject.toml")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "4 kept, 0 broken" in run.stdout


def test_a_broken_contract_is_caught(tmp_path):
    """The linter really reads the code: graph_db does import numpy, so forbidding it fails."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    lines = [
        "[tool.importlinter]",
        f"root_packages = {config['root_packages']!r}".replace("'", '"'),
        "include_external_packages = true",
        "[[tool.importlinter.contracts]]",
        'name = "graph_db without numpy"',
        'type = "forbidden"',
        'source_modules = ["graph_db"]',
        'forbidden_modules = ["numpy"]',
    ]
    path = tmp_path / "contracts.toml"
    path.write_text("\n".join(lines) + "\n")
    run = lint(path)
    assert run.returncode == 1
    assert "0 kept, 1 broken" in run.stdout
    assert "graph_db" in run.stdout and "numpy" in run.stdout
