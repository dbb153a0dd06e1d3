"""The liquid graph in ten lines: write turns and facts, search, inspect.

python examples/quickstart.py [--home DIR]
"""

import argparse

from graph_db import GraphSettings, LiquidGraph

parser = argparse.ArgumentParser()
parser.add_argument("--home", default=None, help="MAGS home (default: MAGS_HOME)")
args = parser.parse_args()
settings = GraphSettings(home=args.home) if args.home else GraphSettings()

with LiquidGraph(settings) as memory:
    user = "quickstart-user"
    turn = memory.add_episode(
        user, "I just adopted a beagle named Biscuit!", speaker="Sam", entities=["Biscuit"]
    )
    memory.add_fact(user, "Sam", "has_pet", "a beagle named Biscuit", source_episode_id=turn)
    for hit in memory.search(user, "Does Sam have any pets?", k=3):
        print(f"{hit.score:.3f}  {hit.memory.block:9}  {hit.memory.text}")
    print(memory.stats(user)["nodes"])
