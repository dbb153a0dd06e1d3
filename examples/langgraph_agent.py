"""A LangChain agent (``create_agent``) with MAGS memory: the middleware recalls before
the model and stores each turn after the agent; the store backs LangGraph's ``store``.

python examples/langgraph_agent.py [--home DIR]
"""

import argparse

from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver

from graph_db import GraphSettings, LiquidGraph
from mags_langgraph import MAGSMemoryMiddleware, MAGSStore, MemoryLoop
from mags_langgraph.llm import LLMs

parser = argparse.ArgumentParser()
parser.add_argument("--home", default=None, help="MAGS home (default: MAGS_HOME)")
args = parser.parse_args()

with LiquidGraph(GraphSettings(home=args.home) if args.home else GraphSettings()) as memory:
    user = "example-agent-user"
    memory.forget_namespace(user)
    llms = LLMs()
    loop = MemoryLoop(memory, llms)
    agent = create_agent(
        llms.model("respond"),
        tools=[],  # add mags_langgraph.memory_tools(loop) with a model that calls tools well
        system_prompt="You are a friendly assistant. Answer in one or two sentences.",
        middleware=[MAGSMemoryMiddleware(loop)],
        store=MAGSStore(memory),
        checkpointer=InMemorySaver(),
    )
    for thread, line in [("a", "I'm allergic to peanuts."), ("b", "Any snack ideas for me?")]:
        config = {"configurable": {"thread_id": thread, "user_id": user}}
        out = agent.invoke({"messages": [("user", line)]}, config)
        print(f"{user}: {line}\nagent: {out['messages'][-1].content}")
    print("remembered:", [h.memory.text for h in loop.recall(user, "allergies")][:2])
