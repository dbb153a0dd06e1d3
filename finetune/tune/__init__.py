"""``mags tune``: the graph's recall and maintenance settings searched with Optuna against
the research prototype's four-term loss (wrong answers, churn, size, unused recall) on a
workload (the evolving-rules game, LoCoMo, TextWorld), the held-out part reported apart.
"""
