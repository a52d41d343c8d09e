# `make EXE=path/name` builds the engine binary (the OpenBench convention);
# `make test` checks formatting, vets and tests every module in go.work,
# installing the external programs the tests need when they are missing.

EXE ?= nnuelab
GO ?= go

# Every module of the workspace, as package patterns (./... alone would test
# only the root module).
MODULES := $(shell $(GO) list -m -f '{{.Dir}}' 2>/dev/null)
PATTERNS := $(foreach m,$(MODULES),$(m)/...)

.PHONY: all build test deps vet fmt-check plugins npm-deps reports-check nets-docs

# The example plugins (plugins/README.md): Go evaluators into plugins/bin,
# metric plugins into plugins/bin/metrics, and a launcher for the Node.js
# plugin, whose packages npm installs from package-lock.json.
PLUGIN_BIN := plugins/bin
NODE_PLUGIN := plugins/nodepst

all: build

# Workspace builds are not VCS-stamped by default; from a git checkout ask
# for it, so that manifests and results name the commit (internal/version).
BUILDVCS := $(shell git rev-parse --git-dir >/dev/null 2>&1 && echo true || echo auto)

build:
	$(GO) build -trimpath -buildvcs=$(BUILDVCS) -o $(EXE) ./cmd/nnuelab

deps: npm-deps
	@if [ ! -x /usr/games/stockfish ]; then \
		echo "installing stockfish (Debian) for the tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stockfish; \
	fi
	@# The experiment runner's Slurm executor is tested on a one-node cluster
	@# (experiments/testdata/slurm-up.sh starts it; it installs these too).
	@if ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then \
		echo "installing slurm-wlm and munge (Debian) for the Slurm executor test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge; \
	fi

npm-deps: $(NODE_PLUGIN)/node_modules/.package-lock.json

$(NODE_PLUGIN)/node_modules/.package-lock.json: $(NODE_PLUGIN)/package-lock.json
	cd $(NODE_PLUGIN) && npm ci --no-audit --no-fund

plugins: npm-deps
	mkdir -p $(PLUGIN_BIN)/metrics
	$(GO) build -trimpath -o $(PLUGIN_BIN)/gofloat ./plugins/gofloat
	$(GO) build -trimpath -o $(PLUGIN_BIN)/sfeval ./plugins/sfeval
	$(GO) build -trimpath -o $(PLUGIN_BIN)/metrics/accuracy ./plugins/accuracy
	printf '#!/bin/sh\nexec node "%s" "$$@"\n' "$(CURDIR)/$(NODE_PLUGIN)/index.js" > $(PLUGIN_BIN)/nodepst
	chmod +x $(PLUGIN_BIN)/nodepst

fmt-check:
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PATTERNS)

test: deps fmt-check vet
	$(GO) test -count=1 $(PATTERNS)
	$(MAKE) reports-check
	# The networks again on the pure-Go kernels: AVX2 and Go must agree.
	$(GO) test -count=1 -tags purego ./engine/nnue/...
	# Lazy SMP under the race detector: the shared table and cloned evaluators.
	$(GO) test -count=1 -race -run 'TTConcurrent|Pool|Ponder|ClonedEvaluators' ./engine/search ./nets
	# The Node.js plugin's own unit tests (the protocol is tested from Go).
	cd $(NODE_PLUGIN) && npm test

# Every committed report is rewritten from the committed results alone (no
# file outside the repository, no task run) and must come out byte-identical.
reports-check: build
	@tmp=$$(mktemp -d); status=0; \
	for f in experiments/*.toml; do \
		name=$$(basename $$f .toml); \
		[ -f experiments/results/$$name/results.jsonl ] || continue; \
		./$(EXE) experiment report $$f --report-dir $$tmp >/dev/null || status=1; \
	done; \
	diff -r $$tmp docs/reports >/dev/null || { echo "reports differ from their results:"; diff -rq $$tmp docs/reports; status=1; }; \
	for d in docs/reports/*.md; do [ -f $$tmp/$$(basename $$d) ] || { echo "$$d: not regenerated"; status=1; }; done; \
	rm -rf $$tmp; [ $$status = 0 ] && echo "reports-check: every report regenerates byte-identically"; exit $$status

# docs/nets: one page per shipped net (figures and numbers from `nnuelab nets
# show`, activations over the fresh validation positions) and the shipped
# nets side by side (shipped.md); docs/nets/README.md is written by hand.
NETS_DOCS_DATA := datasets/fresh-val/fresh-sf500.bin
nets-docs: build
	./$(EXE) nets show --shipped --data $(NETS_DOCS_DATA) --top 4 --threads 2 --out docs/nets --name shipped
