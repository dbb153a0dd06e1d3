"""A chatbot that remembers a user across sessions: the MAGS LangGraph, two threads.

python examples/chatbot_sessions.py [--home DIR]

Each session is a new LangGraph thread (its own short-term messages); what carries over
is the long-term memory in the graph. Models: MAGS_LLM_BASE_URL / OPENAI_API_KEY, else
the local llama.cpp server.
"""

import argparse

from langgraph.checkpoint.memory import InMemorySaver

from graph_db import GraphSettings, LiquidGraph
from mags_langgraph import build_mags_graph
from mags_langgraph.llm import LLMs

parser = argparse.ArgumentParser()
parser.add_argument("--home", default=None, help="MAGS home (default: MAGS_HOME)")
args = parser.parse_args()

with LiquidGraph(GraphSettings(home=args.home) if args.home else GraphSettings()) as memory:
    user = "example-chatbot-user"
    memory.forget_namespace(user)
    bot = build_mags_graph(memory, LLMs(), checkpointer=InMemorySaver())
    sessions = [["Hi, I'm Ana. I live in Porto.", "My cat is called Miso."],
                ["What is my cat called?"]]  # fmt: skip
    for number, lines in enumerate(sessions, 1):
        config = {"configurable": {"thread_id": f"session-{number}", "user_id": user}}
        for line in lines:
            state = bot.invoke({"messages": [("user", line)]}, config)
            print(f"[session {number}] {user}: {line}")
            print(f"[session {number}] bot: {state['messages'][-1].content}")
            found = [m["memory"]["text"] for m in state.get("memories", [])][:3]
            print(f"    recalled: {found}")
