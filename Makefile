# chessmoe — the contract. `make help` lists every target.
#
# Environment: inside an active conda environment (CONDA_PREFIX set, not "base") the
# Makefile uses that environment's python; otherwise it creates ./.venv. Set-up runs
# once: a stamp file records it and is rebuilt only when pyproject.toml changes.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT := $(abspath .)
KERNEL := chessmoe
BUILD := $(ROOT)/build

ifneq ($(and $(CONDA_PREFIX),$(filter-out base,$(CONDA_DEFAULT_ENV))),)
  ENV_DIR := $(CONDA_PREFIX)
  MAKE_ENV := true
else
  ENV_DIR := $(ROOT)/.venv
  MAKE_ENV := python3 -m venv $(ENV_DIR)
endif
PY := $(ENV_DIR)/bin/python
STAMP := $(ENV_DIR)/.chessmoe-installed
TORCH_SPEC ?= torch==2.13.0

# The browser explorers `make explore` serves (one Voila server each, ports EXPLORE_PORT, +1, ...),
# with Voila's lab template minus its CDN stylesheets (share/jupyter/voila/templates/
# chessmoe-offline), so the pages need no network.
EXPLORE_PORT ?= 8866
EXPLORERS := 07_elo_explorer.ipynb 12_phase_explorer.ipynb
# A kernel idle for 2 minutes with no page connected is shut down (checked every minute): each
# visit starts a 150-210 MB kernel that would otherwise outlive its closed tab. voila.json at the
# root says the same for a plain `voila` started there.
VOILA_CULL := --MappingKernelManager.cull_interval=60 --MappingKernelManager.cull_idle_timeout=120 \
  --MappingKernelManager.cull_connected=False

# The reproduction report: Sphinx + MyST-NB (the optional "report" extra), served on localhost.
REPORT_STAMP := $(ENV_DIR)/.chessmoe-report-installed
REPORT_PORT ?= 8000

# Parameters of the data targets.
SOURCE ?= sample
PROFILE ?= small
WORKERS ?= 2
GAMES ?= 150000
# FORCE=1: let a data target replace a finished, committed result it would change (without it
# the target stops with one line naming the directory; resuming an unfinished run needs nothing)
FORCE ?=
FORCE_FLAG := $(if $(FORCE),--force)

.PHONY: report report-serve explore fastchess cutechess parity help env test test-fast lint typecheck layers nbcheck nbclean unit figures results-stats datasets experts controls results-search tournament results openings sample selfplay bench clean distclean

help: ## List the targets with one line each
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | \
	  awk 'BEGIN {FS = ":.*## "}; {printf "  \033[1m%-16s\033[0m %s\n", $$1, $$2}'

env: $(STAMP) ## Create the environment (venv or active conda env), install chessmoe, register the kernel

$(STAMP): pyproject.toml
	$(MAKE_ENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first and pinned: a bare "torch" requirement would pull CUDA wheels.
	$(PY) -m pip install --quiet "$(TORCH_SPEC)"
	$(PY) -m pip install --quiet -e ".[dev]"
	$(PY) -m ipykernel install --sys-prefix --name $(KERNEL) --display-name "Python (chessmoe)" >/dev/null
	# compile the search core once into numba's cache (otherwise the first search pays it)
	$(PY) -m chessmoe.search.native
	touch $(STAMP)

lint: $(STAMP) ## Ruff over chessmoe/ and tests/
	$(PY) -m ruff check chessmoe tests benchmarks

typecheck: $(STAMP) ## Mypy (strict) over chessmoe/
	$(PY) -m mypy chessmoe

layers: $(STAMP) ## The layering contract (import-linter): imports only point down
	$(ENV_DIR)/bin/lint-imports

nbcheck: $(STAMP) ## Check that notebook sources carry no outputs
	$(PY) -m chessmoe notebooks check notebooks

nbclean: $(STAMP) ## Strip outputs and execution counts from notebook sources
	$(PY) -m chessmoe notebooks strip notebooks

# The suite runs in TEST_JOBS processes (pytest-xdist), a test file to a process: on 2 cores
# it takes about half the serial time; TEST_JOBS=0 runs it in one process.
TEST_JOBS ?= 2
PYTEST_JOBS := $(if $(filter 0,$(TEST_JOBS)),,-n $(TEST_JOBS) --dist loadfile)

unit: $(STAMP) ## Run the pytest suite only (TEST_JOBS=2 processes; 0: one)
	$(PY) -m pytest -q $(PYTEST_JOBS) --durations=15

test: lint typecheck layers nbcheck unit ## Lint, type-check, notebook hygiene and the test suite

# The quick lane: every test not marked slow (over about 2 s), browser, stockfish, tools or
# shared_data (pyproject.toml lists the marks), after lint and the import contracts.
FAST_TESTS := not slow and not browser and not stockfish and not tools and not shared_data

test-fast: lint layers ## Lint, import contracts and the fast tests (about 2 min of tests on 2 cores)
	$(PY) -m pytest -q $(PYTEST_JOBS) -m "$(FAST_TESTS)"

figures: $(STAMP) ## Regenerate every paper figure/table from committed results/ (papermill)
	$(PY) -m chessmoe notebooks figures --kernel $(KERNEL) --build $(BUILD)/notebooks \
	  --results $(ROOT)/results --figures $(ROOT)/figures

$(REPORT_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e ".[report]"
	touch $(REPORT_STAMP)

report: $(REPORT_STAMP) ## Build the static reproduction report into build/report (offline; runs make figures first if build/notebooks is absent; retakes docs/report-*.png where Chromium is installed)
	@if [ ! -d $(BUILD)/notebooks ]; then \
	  echo "make report: $(BUILD)/notebooks/ (the executed notebooks) is absent: running make figures first"; \
	  $(MAKE) figures; \
	fi
	$(PY) -m chessmoe.report.site --root $(ROOT) --notebooks $(BUILD)/notebooks --out $(BUILD)/report \
	  --screenshots $(ROOT)/docs

report-serve: ## Serve build/report on http://127.0.0.1:8000/ (REPORT_PORT=...; this machine only; Ctrl-C stops it)
	@test -f $(BUILD)/report/index.html || { echo "make report-serve: $(BUILD)/report/index.html is absent: run make report first"; exit 2; }
	@echo "The report: http://127.0.0.1:$(REPORT_PORT)/ (Ctrl-C stops it)"
	python3 -m http.server $(REPORT_PORT) --bind 127.0.0.1 --directory $(BUILD)/report

explore: $(STAMP) ## Serve the explorers in the browser with Voila on localhost (Ctrl-C stops them)
	@mkdir -p $(BUILD); port=$(EXPLORE_PORT); trap 'kill $$(jobs -p) 2>/dev/null; wait; exit 0' INT TERM; \
	for nb in $(EXPLORERS); do \
	  echo "$$nb: http://localhost:$$port/"; \
	  PYTHONPATH=$(ROOT) JUPYTER_PATH=$(ROOT)/share/jupyter $(ENV_DIR)/bin/voila notebooks/$$nb \
	    --no-browser --port=$$port --Voila.ip=127.0.0.1 --template=chessmoe-offline \
	    $(VOILA_CULL) >$(BUILD)/voila-$$port.log 2>&1 & \
	  port=$$((port + 1)); \
	done; \
	echo "Voila logs: $(BUILD)/voila-*.log. Stop with Ctrl-C."; wait

results-stats: $(STAMP) ## Recompute phase statistics: SOURCE=sample|lichess-2013-01:5000|kingbase|PATH
	$(PY) -m chessmoe stats --source "$(SOURCE)" --results $(ROOT)/results --workers $(WORKERS) \
	  $(FORCE_FLAG)

datasets: $(STAMP) ## Build phase datasets of SOURCE into data/datasets/, manifest into results/datasets/
	$(PY) -m chessmoe data build --source "$(SOURCE)" --workers $(WORKERS) --results $(ROOT)/results \
	  $(FORCE_FLAG)

experts: $(STAMP) ## Train the regimes of PROFILE (smoke|small|medium|paper) into results/experts/PROFILE
	$(PY) -m chessmoe train --profile $(PROFILE) --results $(ROOT)/results $(FORCE_FLAG)

controls: $(STAMP) ## Train the controls PROFILE names (small: regular seeds, separated-long, regular-long; medium: regular-long)
	$(PY) -m chessmoe train --profile $(PROFILE) --controls --results $(ROOT)/results

results-search: $(STAMP) ## Record gated searches of the small experts (Fig. 3) into results/search
	$(PY) -m chessmoe search --bundle $(ROOT)/results/experts/small/separated \
	  --out $(ROOT)/results/search/small-separated $(FORCE_FLAG)

tournament: $(STAMP) ## Play the tournament of PROFILE (small|small-cutechess|powered|replicated|settings|seeds-long|matched|converged|related|ratings-cutechess|medium|paper) into results/tournaments/PROFILE
	$(PY) -m chessmoe tournament --profile $(PROFILE) \
	  --out $(ROOT)/results/tournaments/$(PROFILE) --workers $(WORKERS) $(FORCE_FLAG)

results: $(STAMP) ## The whole pipeline of PROFILE (smoke|small|medium|paper), resumable, skips what is done
	$(PY) -m chessmoe results --profile $(PROFILE) --results $(ROOT)/results $(FORCE_FLAG)

openings: $(STAMP) ## Regenerate the embedded opening suite with Stockfish
	$(PY) -m chessmoe openings --out chessmoe/data/openings/chessmoe-5ply.epd

sample: $(STAMP) ## Regenerate the embedded self-play sample with Stockfish (about 25 min on 2 cores)
	$(PY) -m chessmoe data selfplay-sample --games 3000 --seed 20261122 --workers $(WORKERS) \
	  --out chessmoe/data/sample/selfplay-sf15.pgn.gz

selfplay: $(STAMP) ## Grow the medium profile's committed self-play run to GAMES (150000, ~10 h on 2 cores; rerun to resume)
	$(PY) -m chessmoe data selfplay-run --out results/selfplay/stockfish-n1000 \
	  --games $(GAMES) --workers $(WORKERS)

FASTCHESS_REPO ?= https://github.com/Disservin/fastchess.git
FASTCHESS_COMMIT := 74deac23aadc6718fa0f8e24ac95d16392d79444
FASTCHESS := $(BUILD)/fastchess/fastchess

fastchess: $(FASTCHESS) ## Build the fastchess tournament manager (pinned commit) into build/fastchess

$(FASTCHESS):
	rm -rf $(BUILD)/fastchess && mkdir -p $(BUILD)
	git clone --quiet --filter=blob:none $(FASTCHESS_REPO) $(BUILD)/fastchess
	# the pinned commit is the checksum of the source: a different tree cannot check out under it
	git -C $(BUILD)/fastchess -c advice.detachedHead=false checkout --quiet $(FASTCHESS_COMMIT)
	test "$$(git -C $(BUILD)/fastchess rev-parse HEAD)" = "$(FASTCHESS_COMMIT)"
	$(MAKE) -C $(BUILD)/fastchess -j2 >/dev/null

CUTECHESS_REPO ?= https://github.com/cutechess/cutechess.git
CUTECHESS_COMMIT := 5e84232be4546aaedc9d87a96c91867a1da06ada
CUTECHESS := $(BUILD)/cutechess/cutechess-cli

cutechess: $(CUTECHESS) ## Build cutechess-cli (pinned commit; needs cmake and Qt 6: qt6-base-dev qt6-svg-dev) into build/cutechess

$(CUTECHESS):
	rm -rf $(BUILD)/cutechess-src && mkdir -p $(BUILD)/cutechess
	git clone --quiet --filter=blob:none $(CUTECHESS_REPO) $(BUILD)/cutechess-src
	git -C $(BUILD)/cutechess-src -c advice.detachedHead=false checkout --quiet $(CUTECHESS_COMMIT)
	test "$$(git -C $(BUILD)/cutechess-src rev-parse HEAD)" = "$(CUTECHESS_COMMIT)"
	cmake -S $(BUILD)/cutechess-src -B $(BUILD)/cutechess-src/build -DWITH_TESTS=OFF \
	  -DCMAKE_BUILD_TYPE=Release >/dev/null
	$(MAKE) -C $(BUILD)/cutechess-src/build -j2 cli >/dev/null
	cp $(BUILD)/cutechess-src/build/cutechess-cli $(CUTECHESS)

parity: $(STAMP) $(CUTECHESS) ## Replay 200 games of the replicated tournament under cutechess-cli (rule parity)
	$(PY) -m chessmoe parity results/tournaments/replicated --games 200

bench: $(STAMP) ## Run the benchmarks and append them to BENCHMARKS.md
	$(PY) benchmarks/bench.py --out $(ROOT)/BENCHMARKS.md

clean: ## Remove build outputs (executed notebooks, caches)
	rm -rf $(BUILD) .pytest_cache .mypy_cache .ruff_cache

distclean: clean ## Also remove the local virtual environment
	rm -rf $(ROOT)/.venv
