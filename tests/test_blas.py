"""One BLAS thread while MAGS computes, the process's own setting back after, also when
calls overlap in threads (graph_db/blas.py)."""

from __future__ import annotations

from contextlib import ExitStack

from threadpoolctl import threadpool_info, threadpool_limits

from graph_db.blas import blas_threads


def _blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


def test_the_limit_holds_inside_and_the_process_setting_comes_back_after_overlapping_calls():
    with threadpool_limits(limits=2, user_api="blas"):  # the host's own setting
        assert _blas_threads() == {2}
        first, second = ExitStack(), ExitStack()
        first.enter_context(blas_threads(1))
        assert _blas_threads() == {1}
        second.enter_context(blas_threads(1))  # another thread's recall begins
        first.close()  # the first ends while the second computes: still limited
        assert _blas_threads() == {1}
        second.close()
        assert _blas_threads() == {2}
        with blas_threads(0):  # 0: left as the process has it
            assert _blas_threads() == {2}
