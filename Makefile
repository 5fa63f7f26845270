# Two commands on a fresh machine: `make demo` and `make test`. Both idempotent:
# the venv is (re)installed only when pyproject.toml changes.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
BUILD  := build

.PHONY: demo test test-slow test-matrix test-newest quick lint bench docs clean chromium

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed-run: pyproject.toml setup.py src/jitscope-autowatch.pth | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[plot]'
	touch $@

$(VENV)/.installed-test: pyproject.toml setup.py src/jitscope-autowatch.pth | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[plot,test]'
	touch $@ $(VENV)/.installed-run

## demo: the seeds' case studies measured live on this machine (tables, JSON and HTML in build/)
demo: $(VENV)/.installed-run
	$(BIN)/jitscope demo --json $(BUILD)/demo.json --html $(BUILD)/demo.html

## quick: the demo in under 30 s
quick: $(VENV)/.installed-run
	$(BIN)/jitscope demo --quick

## test: the suite (real JAX on CPU, real subprocesses, headless chromium); `slow` tests excluded
test: $(VENV)/.installed-test chromium
	JAX_PLATFORMS=cpu $(BIN)/python -m pytest -q -n 2 --dist loadgroup -m "not slow"

## test-matrix: the JAX-touching tests on older JAX releases, each in its own venv (.venv-jax-<version>)
MATRIX_JAX ?= 0.8.3 0.6.2
MATRIX_TESTS := tests/test_watch_api.py tests/test_inspect.py tests/test_compare.py tests/test_scale.py \
	tests/test_watch_cli.py tests/test_watch_truth.py tests/test_compile_passes.py tests/test_watch_stall.py \
	tests/test_warmup.py
test-matrix:
	@for v in $(MATRIX_JAX); do \
	  test -x .venv-jax-$$v/bin/python || { $(PYTHON) -m venv .venv-jax-$$v && \
	    .venv-jax-$$v/bin/pip install -q "jax==$$v" "jaxlib==$$v" numpy rich pytest pytest-xdist jsonschema \
	      hypothesis && .venv-jax-$$v/bin/pip install -q --no-deps -e .; } || exit 1; \
	  echo "== JAX $$v"; JAX_PLATFORMS=cpu .venv-jax-$$v/bin/python -m pytest -q -n 2 -p no:cacheprovider \
	    $(MATRIX_TESTS) || status=1; \
	done; exit $${status:-0}

## test-newest: the FULL suite on the newest JAX release, which needs Python >= 3.12: a Debian 13 (trixie,
## Python 3.13) chroot built from Debian's packages (root; built once in NEWEST_ROOT, ~5 min), a venv in it
## (.venv-py313: jax==NEWEST_JAX + this checkout's .[plot,test]), this checkout bind-mounted (.ci/newest-jax.sh)
NEWEST_JAX  ?= 0.12.0.1
NEWEST_ROOT ?= $(HOME)/.cache/jitscope/chroot-trixie
test-newest:
	NEWEST_JAX=$(NEWEST_JAX) bash .ci/newest-jax.sh build $(NEWEST_ROOT)
	NEWEST_JAX=$(NEWEST_JAX) JAX_PLATFORMS=cpu bash .ci/newest-jax.sh run $(NEWEST_ROOT) $(CURDIR) \
	  python -m pytest -q -n 2 --dist loadgroup -m "not slow"

## test-slow: only the long fuzzing runs (thousands of mutated results per kind)
test-slow: $(VENV)/.installed-test
	JAX_PLATFORMS=cpu $(BIN)/python -m pytest -q -n 2 -m slow

## chromium: Debian's chromium for the HTML report tests (root installs it; others need it installed)
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	      || echo "warning: could not install chromium; browser tests will be skipped"; \
	  else echo "warning: chromium not found and not root; browser tests will be skipped"; fi; }

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks

docs: $(VENV)/.installed-run
	$(BIN)/python -m jitscope rules --markdown > docs/rules.md
	$(BIN)/python -m jitscope rules --runtime --markdown > docs/runtime-findings.md

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/seed_tables.py

clean:
	rm -rf $(VENV) $(BUILD) .pytest_cache

# A wheel and an sdist in dist/ (never committed) that pass twine check.
package-check: $(VENV)/.installed-test
	rm -rf dist
	$(VENV)/bin/python -m pip install -q build twine
	$(VENV)/bin/python -m build --outdir dist .
	$(VENV)/bin/python -m twine check dist/*
