"""A LlamaIndex query engine over a user's MAGS memory (the retriever plugin).

python examples/llamaindex_query_engine.py [--home DIR]

Retrieval is MAGS recall (anchors + walk); each node carries its provenance (block,
speaker, time, the path that found it). Synthesis uses the same OpenAI-compatible
endpoint as the agent (the local llama.cpp server by default) through LangChain.
"""

import argparse

from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.response_synthesizers import get_response_synthesizer

from graph_db import GraphSettings, LiquidGraph
from mags_langgraph.llamaindex import LangChainLLM, MAGSRetriever
from mags_langgraph.llm import LLMs

parser = argparse.ArgumentParser()
parser.add_argument("--home", default=None, help="MAGS home (default: MAGS_HOME)")
args = parser.parse_args()

with LiquidGraph(GraphSettings(home=args.home) if args.home else GraphSettings()) as memory:
    user = "example-llamaindex-user"
    memory.forget_namespace(user)
    memory.add_episodes(user, [
        {"text": "We adopted a beagle puppy called Biscuit today!", "speaker": "Sam"},
        {"text": "Biscuit chewed my running shoes again.", "speaker": "Sam"},
        {"text": "I'm training for the Leeds half marathon in May.", "speaker": "Sam"},
    ])  # fmt: skip
    llm = LangChainLLM(model=LLMs().model("respond"))
    engine = RetrieverQueryEngine(
        retriever=MAGSRetriever(memory, user_id=user, k=3),
        response_synthesizer=get_response_synthesizer(llm=llm, response_mode="compact"),
    )
    response = engine.query("What is Sam's dog called?")
    print("answer:", str(response).strip())
    for node in response.source_nodes:
        print(f"  {node.score:.2f} [{node.metadata['block']}] {node.node.get_content()}")
