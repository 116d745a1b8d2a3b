# The README's commands. Each one installs what it needs into .venv first.
## Python: the versions the whole locked stack installs and passes on, newest first. .venv (make
## test, lint, demo, ...) runs the first; `make test-pythons` gives each other one its own
## .venv-X.Y from the same lock and checks that every module imports and the unit tests pass.
## pyproject's requires-python and classifiers list the same versions; ruff and mypy target the
## oldest (pyproject), so code that needs a newer Python fails lint.
PYTHONS := 3.13 3.12 3.11
PYTHON_VERSION ?= $(firstword $(PYTHONS))
OTHER_PYTHONS := $(filter-out $(PYTHON_VERSION),$(PYTHONS))
# pythonX.Y from PATH when it runs (a pyenv shim of a version pyenv has not selected exits 127),
# else pyenv's own copy of that version.
find_python = $(firstword $(foreach p,python$(1) $(wildcard $(HOME)/.pyenv/versions/$(1).*/bin/python$(1)),$(shell $(p) -c '' >/dev/null 2>&1 && echo $(p))))
PYTHON ?= $(call find_python,$(PYTHON_VERSION))
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(PYTHON_VERSION)
# The runtime's packages: `make test-pythons` imports every module under them.
RUNTIME_PACKAGES := article_runtime
PROMPTFOO := evals/node_modules/.bin/promptfoo
# helm for the chart tests: not a Debian package here, so built once from the Go module proxy
# with the machine's Go into the same cache as the Kafka jars.
HELM_VERSION := v3.22.0
HELM := $(HOME)/.cache/article-runtime/helm-$(HELM_VERSION)/helm
GO ?= $(or $(shell command -v go),/usr/local/go/bin/go)
# promtool for the chart's alert-rule tests: taken out of Debian's prometheus package (apt-get
# download and dpkg-deb -x: no daemon installed, no root needed), once into the same cache.
PROMTOOL := $(HOME)/.cache/article-runtime/promtool/promtool

.PHONY: lock demo test lint bench bench-stream soak clean evals evals-live evals-install debian-packages mutants prereqs test-pythons

## What the machine must have that make cannot install itself (README.md, "Prerequisites"):
## checked before every target (about 0.2 s once .venv exists), one line naming what is
## missing. Each group is needed only until what it builds exists: python, a C++ compiler and
## ICU until .venv is made, Maven until the Kafka jars are cached, Node until promptfoo is in
## evals/node_modules, Go until helm is built, apt-get until promtool is unpacked.
KAFKA_JARS := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/article-runtime/kafka-*/libs/.complete
NEED_venv := $(if $(wildcard $(STAMP)),,python compiler icu)
NEED_kafka := java $(if $(wildcard $(KAFKA_JARS)),,maven)
NEED_evals := $(if $(wildcard $(PROMPTFOO)),,node)
NEED_helm := $(if $(wildcard $(HELM)),,go)
NEED_promtool := $(if $(wildcard $(PROMTOOL)),,apt)
# What each target needs (its prerequisites inherit it); `make prereqs` checks everything.
NEEDS = venv
demo bench-stream soak: NEEDS += kafka
test: NEEDS += kafka evals helm promtool
evals evals-live evals-install: NEEDS += evals
prereqs:
	@PYTHON=$(PYTHON) PYTHON_VERSION=$(PYTHON_VERSION) GO=$(GO) sh tools/prereqs.sh debian $(foreach n,$(NEEDS) $(if $(filter prereqs,$(MAKECMDGOALS)),kafka evals helm promtool),$(NEED_$(n)))

## Debian packages the runtime uses besides Python's (debian-packages.txt: Hunspell and its
## dictionaries), installed with apt-get when one is missing; checked on every run (~0.1 s).
DEB_PACKAGES := $(shell sed -e 's/\#.*//' debian-packages.txt)
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
debian-packages: prereqs
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# Dependencies come from the lock (exact versions and hashes), then the project itself without
# resolving anything, so a new release upstream cannot change what CI or the image runs.
# A .venv made by another Python (PYTHON_VERSION changed) is made anew.
$(STAMP): pyproject.toml requirements-dev.lock | debian-packages
	@test -n "$(PYTHON)" || { echo "Python $(PYTHON_VERSION) not found (make PYTHON=/path/to/python$(PYTHON_VERSION), or PYTHON_VERSION= one of $(PYTHONS))"; exit 1; }
	@if test -x $(BIN)/python && test "$$($(BIN)/python -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != "$(PYTHON_VERSION)"; then \
	  echo "$(VENV) is not Python $(PYTHON_VERSION): made anew"; rm -rf $(VENV); fi
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --require-hashes -r requirements-dev.lock
	$(BIN)/pip install --quiet --no-deps -e .
	@rm -f $(VENV)/.installed*
	@touch $(STAMP)

## The other supported Pythons (OTHER_PYTHONS), one after the other: each gets .venv-X.Y from
## the lock (kept between runs), imports every module of the runtime's packages and runs the
## unit tests. The integration tests and lint run on $(PYTHON_VERSION) only (make test).
## Cost per Python, on one core: ~40 s to install the lock (+70 s when PyICU is not in pip's wheel
## cache), ~5 s of imports, ~4.7 min of unit tests (~3.6 min with PYTHONS_PROFILE=smoke).
## OTHER_PYTHONS=3.11 checks only the oldest.
## PYTHONS_PROFILE=smoke runs every unit test with 10 examples per property test instead of 100.
PYTHONS_PROFILE ?= article-runtime
test-pythons: $(foreach v,$(OTHER_PYTHONS),test-python-$(v))

IMPORT_EVERY_MODULE := import importlib, pkgutil, sys; \
  names = [m.name for top in sys.argv[1:] for m in pkgutil.walk_packages(importlib.import_module(top).__path__, top + ".") if not m.name.endswith("__main__")]; \
  [importlib.import_module(n) for n in names]; \
  print(sys.version.split()[0] + ":", len(names), "modules imported")

test-python-%: .venv-%/.installed $(HELM) $(PROMTOOL)
	.venv-$*/bin/python -W error -c '$(IMPORT_EVERY_MODULE)' $(RUNTIME_PACKAGES)
	HYPOTHESIS_PROFILE=$(PYTHONS_PROFILE) ARTICLE_RUNTIME_HELM=$(HELM) ARTICLE_RUNTIME_PROMTOOL=$(PROMTOOL) .venv-$*/bin/pytest -q tests/unit

# Kept: a stamp made by a pattern rule is otherwise an intermediate file make deletes.
.PRECIOUS: .venv-%/.installed
.venv-%/.installed: pyproject.toml requirements-dev.lock | debian-packages
	@py="$(call find_python,$*)"; test -n "$$py" || { echo "Python $* not found"; exit 1; }; \
	  rm -rf .venv-$* && $$py -m venv .venv-$*
	.venv-$*/bin/pip install --quiet --upgrade pip
	.venv-$*/bin/pip install --quiet --require-hashes -r requirements-dev.lock
	.venv-$*/bin/pip install --quiet --no-deps -e .
	@touch $@

## Re-resolve the locks after changing dependencies in pyproject.toml (uv, for Linux x86_64).
## One lock for every supported Python: resolved for the oldest, then resolved again for each
## newer one against it; a newer Python that would need another package or version fails here.
LOCK_PYTHON := $(lastword $(PYTHONS))
LOCK_FLAGS := --python-platform x86_64-manylinux_2_28 --generate-hashes --quiet
lock: $(STAMP)
	test -x $(BIN)/uv || $(BIN)/pip install --quiet uv
	$(BIN)/uv pip compile pyproject.toml --python-version $(LOCK_PYTHON) $(LOCK_FLAGS) -o requirements.lock
	$(BIN)/uv pip compile pyproject.toml --extra dev -c requirements.lock --python-version $(LOCK_PYTHON) $(LOCK_FLAGS) -o requirements-dev.lock
	@for v in $(filter-out $(LOCK_PYTHON),$(PYTHONS)); do \
	  $(BIN)/uv pip compile pyproject.toml --extra dev -c requirements-dev.lock --python-version $$v $(LOCK_FLAGS) --no-header --no-annotate -o $(VENV)/lock-$$v.txt || exit 1; \
	  grep -h '==' requirements-dev.lock | cut -d' ' -f1 | sort > $(VENV)/lock-pins; \
	  grep -h '==' $(VENV)/lock-$$v.txt | cut -d' ' -f1 | sort | comm -13 $(VENV)/lock-pins - > $(VENV)/lock-extra; \
	  if test -s $(VENV)/lock-extra; then echo "Python $$v needs pins the lock lacks:"; cat $(VENV)/lock-extra; exit 1; fi; \
	done; echo "requirements-dev.lock holds what Python $(PYTHONS) need"

## Run the main job on the bundled samples.
demo: $(STAMP)
	$(BIN)/python -m article_runtime.streams.local.demo

## Lint, type-check and run the whole test suite (the evals tests need promptfoo installed,
## the chart tests helm).
test: $(STAMP) lint $(PROMPTFOO) $(HELM) $(PROMTOOL)
	ARTICLE_RUNTIME_HELM=$(HELM) ARTICLE_RUNTIME_PROMTOOL=$(PROMTOOL) $(BIN)/pytest -q

$(HELM): | prereqs
	GOTOOLCHAIN=local GOFLAGS=-trimpath GOBIN=$(dir $(HELM)) $(GO) install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)

$(PROMTOOL): | prereqs
	rm -rf $(dir $@).unpack && mkdir -p $(dir $@).unpack
	cd $(dir $@).unpack && apt-get download -qq prometheus && dpkg-deb -x prometheus_*.deb .
	mv $(dir $@).unpack/usr/bin/promtool $@ && rm -rf $(dir $@).unpack

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

## Extraction benchmark over ../shared/bench, ../shared/samples-multilingual and samples/ (prints a table).
bench: $(STAMP)
	$(BIN)/python -m bench.run

## Whole-flow throughput: local broker, 1, 2 and 3 workers side by side (WORKERS=1,2,3), instant
## scripted provider; prints articles/s and the CPU of workers and broker.
## ROUNDS=N measures each column N times in turn and prints each figure's median.
## PAGES=aeb (real news pages, the default) or PAGES=synthetic (4 KB test pages).
WORKERS ?= 1,2,3
ROUNDS ?= 1
PAGES ?= aeb
bench-stream: $(STAMP)
	$(BIN)/python -m bench.stream_throughput --workers $(WORKERS) --rounds $(ROUNDS) --pages $(PAGES)

## Faults on the real broker, 20 runs of each scenario (broker restart, workers joining and
## leaving, a SIGKILL during a rebalance): prints runs passed, articles lost, runs stuck.
soak: $(STAMP)
	$(BIN)/python -m bench.soak

## Mutation testing (cosmic-ray) of the modules that carry guarantees (mutation/modules.toml),
## one at a time against their fast tests: prints each module's score. MODULE=name for one.
mutants: $(STAMP)
	nice -n 10 $(BIN)/python -m mutation.run $(if $(MODULE),--module $(MODULE))

## Promptfoo, pinned in evals/package-lock.json, into evals/node_modules (gitignored).
$(PROMPTFOO): evals/package.json evals/package-lock.json | prereqs
	npm ci --prefix evals --no-audit --no-fund
	@touch $@

evals-install: $(PROMPTFOO)

## Promptfoo suites offline: every stored answer must get its labelled verdict (evals/README.md).
evals: $(STAMP) $(PROMPTFOO)
	$(BIN)/python -m evals.run

## The same suites against runtime_primary and runtime_fallback (PROVIDERS=file, RECORD=1).
evals-live: $(STAMP) $(PROMPTFOO)
	$(BIN)/python -m evals.run --live $(if $(PROVIDERS),--providers $(PROVIDERS)) $(if $(RECORD),--record)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
