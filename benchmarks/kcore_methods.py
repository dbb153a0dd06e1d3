"""k-core decomposition on Neo4j: in the engine (GDS gds.kcore.stream) vs read and peeled in
Python, on the same namespace. Run by hand (not a test, not part of ``make bench``):

    python benchmarks/kcore_methods.py --memories 10000            # ~44k ASSOC edges
    python benchmarks/kcore_methods.py --memories 10000 --edges 200000 --repeat 5

Neo4j: MAGS_NEO4J_URI's (the namespace is removed afterwards), or a local Neo4j Community +
GDS started for the run (graph_db/backends/local_neo4j.py, stopped at the end). The namespace
is filled through the write path by bench_dynamics's generator and its cheap fill embedder,
optionally densified to ``--edges`` liquid edges (bench_dynamics.densify). Each method runs
once to warm up, then ``--repeat`` times, alternating; the decomposition is timed as a
maintenance pass runs it (the memories' stored cores are read before, not counted), and the
cores of both methods are checked equal. Prints the times; writes nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from bench_dynamics import SynthEmbedder, SynthMemory, assoc_count, densify, fill

from graph_db import GraphSettings, LiquidGraph
from graph_db.backends.local_neo4j import LocalNeo4j
from graph_db.embeddings import make_embedder
from graph_db.maintenance import Maintainer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--edges", type=int, default=0, help="densify to this many ASSOC edges")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--heap", default="2g", help="heap of the local Neo4j")
    parser.add_argument(
        "--keep", action="store_true", help="keep the namespace, and reuse it if filled"
    )
    args = parser.parse_args()

    server = None
    if not os.environ.get("MAGS_NEO4J_URI"):
        server = LocalNeo4j(heap=args.heap, pagecache_mb=1024)
        print("starting a local Neo4j ...", flush=True)
        settings = server.settings()
    else:
        settings = GraphSettings()
    ns = f"kcore-bench-{args.memories}-seed{args.seed}"
    try:
        gen = SynthMemory(args.memories, args.seed)
        fake = SynthEmbedder(make_embedder(GraphSettings()), gen.vocabulary())
        with LiquidGraph(settings, embedder=fake) as g:
            if not (args.keep and g.backend.read("memory_count", ns=ns)[0]["memories"]):
                g.forget_namespace(ns)
                filled = fill(g, ns, gen, 500, args.memories)
                print(f"filled {args.memories:,} memories in {filled['fill_seconds']:.0f} s")
            if args.edges:
                densify(g, ns, args.edges, args.seed)
            print(f"{assoc_count(g, ns):,} ASSOC edges; {g.backend.describe}")
            methods = {
                m: Maintainer(g.backend, g.settings.model_copy(update={"kcore_method": m}))
                for m in ("gds", "peel")
            }
            stored = methods["peel"]._stored_cores(ns)
            times: dict[str, list[float]] = {m: [] for m in methods}
            results = {}
            for rep in range(args.repeat + 1):
                for m, maintainer in methods.items():
                    t0 = time.perf_counter()
                    cores, edges, how = maintainer._decompose(ns, stored)
                    seconds = time.perf_counter() - t0
                    assert how == m, (how, m)
                    results[m] = (cores, edges)
                    if rep:  # the first round warms up
                        times[m].append(seconds)
            assert results["gds"] == results["peel"], "the two methods disagree"
            cores, edges = results["gds"]
            print(
                f"{len(cores):,} memories, {edges:,} edges, max core {max(cores.values())}; "
                f"decomposition over {args.repeat} runs (median / min, s):"
            )
            for m, ts in times.items():
                print(f"  {m:5} {statistics.median(ts):7.3f} / {min(ts):7.3f}")
            if not args.keep:
                g.forget_namespace(ns)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
