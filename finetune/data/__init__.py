"""Training data for the role adapters: validator, generator, splits and diversity report.

``python -m finetune.data build|validate|report`` (see ``finetune/data/cli.py``). Pure Python:
no torch, no graph engine, so the data can be built and checked anywhere.
"""
