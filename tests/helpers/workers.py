"""Worker processes of the durability and race tests (tests/helpers/store_worker.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

WORKER = Path(__file__).parent / "store_worker.py"


def start_worker(mode: str, home: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(WORKER), mode, str(home), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def wait_for(proc: subprocess.Popen, line: str) -> list[str]:
    seen = []
    for out in proc.stdout:
        seen.append(out.strip())
        if out.strip() == line:
            return seen
    raise AssertionError(f"worker exited ({proc.wait()}) before printing {line!r}: {seen}")
