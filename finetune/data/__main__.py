"""``python -m finetune.data``: see finetune/data/cli.py."""

import sys

from finetune.data.cli import main

sys.exit(main())
