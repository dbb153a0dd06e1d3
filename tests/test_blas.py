"""One BLAS thread while MAGS computes, the process's own setting back after, also when
calls overlap in threads (graph_db/blas.py). Run in a fresh interpreter: the setting is the
process's, and other tests' threads may be computing in this one."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
from contextlib import ExitStack
from threadpoolctl import threadpool_info, threadpool_limits
from graph_db.blas import blas_threads

def blas():
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}

with threadpool_limits(limits=2, user_api="blas"):  # the host's own setting
    assert blas() == {2}, blas()
    first, second = ExitStack(), ExitStack()
    first.enter_context(blas_threads(1))
    assert blas() == {1}, blas()
    second.enter_context(blas_threads(1))  # another thread's recall begins
    first.close()  # the first ends while the second computes: still limited
    assert blas() == {1}, blas()
    second.close()
    assert blas() == {2}, blas()
    with blas_threads(0):  # 0: left as the process has it
        assert blas() == {2}, blas()
print("ok")
"""


def test_the_limit_holds_inside_and_the_process_setting_comes_back_after_overlapping_calls():
    run = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "ok"
