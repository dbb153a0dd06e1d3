"""mags_langgraph: the agent side of MAGS (LangGraph nodes, store, middleware, retriever, CLI)."""
