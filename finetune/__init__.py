"""finetune: data, rewards, training and serving of the role adapters (engram, recall).

The top layer: it may import mags_langgraph and graph_db, nothing imports it. Torch, TRL and
PEFT are the ``mags[finetune]`` extra; data, validator and rewards run without them.
"""
