"""finetune: CoM data, rewards, GRPO + LoRA training and export of the engram/recall adapters."""
