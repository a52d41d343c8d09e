# `make EXE=path/name` builds the engine binary for this machine's CPU (the
# OpenBench convention; `make portable` for any x86-64 CPU);
# `make check` is the fast tier: formatting, vet, staticcheck, go mod tidy,
# the generated assembly and every test that needs nothing from outside Go
# (no apt, no npm, no network once the Go tools and modules are fetched);
# `make test` checks formatting, vets and tests every module in go.work,
# installing the external programs the tests need when they are missing
# (see the README for what it installs).

EXE ?= nnuelab
GO ?= go

# `make` builds for the machine, as Stockfish's `make build ARCH=native`
# does: GOAMD64, Go's x86-64 level, is the highest this CPU has of v3 (AVX,
# AVX2, BMI1/2, F16C, FMA, LZCNT, MOVBE, XSAVE: the level docs/perf.md's
# figures were measured at) and v2 (SSE3, SSSE3, SSE4.1/4.2, POPCNT, CX16,
# LAHF), read from /proc/cpuinfo; v1 (any x86-64) where it has neither or
# the flags cannot be read. Such a binary starts only on CPUs of its level
# (Go's runtime says so and exits on others): `make portable`, or
# `make GOAMD64=v1`, builds one for any x86-64 CPU. The NNUE and trainer
# kernels are AVX2 assembly chosen at run time whatever the level
# (engine/nnue/simd, nets/train/vec), so a v1 binary still uses AVX2 where
# the CPU has it; `make arch-check` (part of make test) shows that a v1 and
# a native build search the same nodes and train the same net. The Go code
# does not depend on the level either: at v3 Go may fuse x*y + z into one
# FMA instruction (one rounding instead of two), so float expressions that
# it would fuse carry explicit conversions (float64(x*y) + z), and
# `make fma-check` (part of make test) finds any it would still fuse; so
# training is deterministic whatever the level (docs/training.md). Off
# x86-64 GOAMD64 has no effect.
CPU_FLAGS := $(shell grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2)
has_flags = $(if $(strip $(foreach f,$(1),$(if $(filter $(f),$(CPU_FLAGS)),,missing))),,yes)
NATIVE_GOAMD64 := $(if $(call has_flags,avx avx2 bmi1 bmi2 f16c fma abm movbe xsave),v3,$(if $(call has_flags,pni ssse3 sse4_1 sse4_2 popcnt cx16 lahf_lm),v2,v1))
GOAMD64 ?= $(NATIVE_GOAMD64)

# Every module of the workspace, as package patterns (./... alone would test
# only the root module).
MODULES := $(shell $(GO) list -m -f '{{.Dir}}' 2>/dev/null)
PATTERNS := $(foreach m,$(MODULES),$(m)/...)

.PHONY: all build portable check test deps vet fmt-check staticcheck tidy-check tools plugins npm-deps reports-check nets-docs generate asm-check arch-check fma-check sf-npm

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
	GOAMD64=$(GOAMD64) $(GO) build -trimpath -buildvcs=$(BUILDVCS) -o $(EXE) ./cmd/nnuelab
	@echo "built $(EXE) for GOAMD64=$(GOAMD64) (this CPU: $(NATIVE_GOAMD64); make portable builds for any x86-64 CPU)"

portable:
	GOAMD64=v1 $(GO) build -trimpath -buildvcs=$(BUILDVCS) -o $(EXE) ./cmd/nnuelab
	@echo "built $(EXE) for GOAMD64=v1 (any x86-64 CPU)"

# A portable (v1) and a native build search exactly the same tree: bench's
# node count depends only on the code, not on the instructions the compiler
# chose (and the NNUE kernels are the same AVX2 assembly in both). They also
# train the same net: a few seconds of training on a committed shard (about
# 200 steps, enough for a fused multiply-add in the loss, the schedule or the
# optimizer to change the quantized weights) must give the same payload_sha256.
ARCH_CHECK_DEPTH := 9
ARCH_CHECK_TRAIN := --arch chess768 --data datasets/selfplay-gen1/s1-of-4.binpack \
	--val-data datasets/fresh-val/fresh-sf500.bin --epochs 4 --epoch-size 50000 --batch 1024 \
	--lr 0.01 --schedule cosine --lambda 0.9 --threads 2 --seed 1
arch-check:
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	GOAMD64=v1 $(GO) build -o $$tmp/v1 ./cmd/nnuelab && GOAMD64=$(GOAMD64) $(GO) build -o $$tmp/native ./cmd/nnuelab && \
	a=$$($$tmp/v1 bench $(ARCH_CHECK_DEPTH) | grep '^Nodes searched') && b=$$($$tmp/native bench $(ARCH_CHECK_DEPTH) | grep '^Nodes searched') && \
	if [ "$$a" = "$$b" ]; then echo "arch-check: GOAMD64=v1 and $(GOAMD64) builds agree ($$a at depth $(ARCH_CHECK_DEPTH))"; \
	else echo "arch-check: GOAMD64=v1 $$a, GOAMD64=$(GOAMD64) $$b"; exit 1; fi; \
	for b in v1 native; do \
		mkdir $$tmp/$$b.net && $$tmp/$$b train $(ARCH_CHECK_TRAIN) --out $$tmp/$$b.net/net.nnue.zst >$$tmp/$$b.net/log 2>&1 || \
			{ cat $$tmp/$$b.net/log; echo "arch-check: the $$b build's training failed"; exit 1; }; \
	done; \
	a=$$(head -c 4096 $$tmp/v1.net/net.nnue.zst | grep -a -o 'payload_sha256 = "[0-9a-f]*"' | cut -d'"' -f2); \
	b=$$(head -c 4096 $$tmp/native.net/net.nnue.zst | grep -a -o 'payload_sha256 = "[0-9a-f]*"' | cut -d'"' -f2); \
	if [ -n "$$a" ] && [ "$$a" = "$$b" ]; then echo "arch-check: GOAMD64=v1 and $(GOAMD64) builds train the same net (payload_sha256 $$a)"; \
	else echo "arch-check: GOAMD64=v1 trains payload_sha256 $${a:-?}, GOAMD64=$(GOAMD64) $${b:-?}: the builds' float code differs (make fma-check names fused multiply-adds)"; exit 1; fi

# No fused multiply-add in the Go code of any module of go.work. At
# GOAMD64=v3 the compiler may fuse x*y + z into one FMA instruction, which
# rounds once where a v1 build rounds twice, so a v3 build would compute
# other numbers (other trained nets); on arm64 it fuses x*y + z and x*y - z
# wherever it can, so an arm64 build would too (and the Rengar head would
# not match its reference). An explicit conversion, float64(x*y) + z,
# forbids the fusion everywhere and is a no-op where nothing fuses. This
# compiles every package of the workspace with -S for amd64 at v3, for
# amd64 at v3 with -tags purego (the pure-Go kernels) and for arm64, and
# fails naming each function (and line) whose code has a fused
# multiply-add (VFMADD/VFMSUB/VFNMADD/VFNMSUB; FMADD/FMSUB/FNMADD/FNMSUB),
# outside FMA_CHECK_ALLOW (function names, for Go code that fuses on
# purpose; none today). The AVX2 assembly kernels (engine/nnue/simd,
# nets/train/vec: chosen at run time whatever GOAMD64, and vec.FMAPeak's
# FMA loop, a measure of the FMA rate) are not compiled Go and are not
# looked at; nor are _test.go files, which compute no shipped number.
FMA_CHECK_ALLOW :=
FMA_CHECK_TARGETS := amd64-v3 amd64-v3-purego arm64
MODULE_PATHS := $(shell $(GO) list -m -f '{{.Path}}' 2>/dev/null)
fma-check:
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	for t in $(FMA_CHECK_TARGETS); do \
		case $$t in \
		amd64-v3) env="GOARCH=amd64 GOAMD64=v3"; tags=;; \
		amd64-v3-purego) env="GOARCH=amd64 GOAMD64=v3"; tags=purego;; \
		arm64) env="GOARCH=arm64"; tags=;; \
		esac; \
		env $$env $(GO) build -tags "$$tags" $(foreach p,$(MODULE_PATHS),-gcflags='$(p)/...=-S') $(PATTERNS) >$$tmp/s 2>&1 || \
			{ grep -v -e STEXT -e '^	' $$tmp/s | head -50; echo "fma-check: the $$t build failed"; exit 1; }; \
		awk -v root='$(CURDIR)/' -v t=$$t '/ STEXT / { fn = $$1 } \
			/\t(VFMADD|VFMSUB|VFNMADD|VFNMSUB|FMADD|FMSUB|FNMADD|FNMSUB)/ && match($$0, /\([^)]*\.go:[0-9]+\)/) { \
				at = substr($$0, RSTART + 1, RLENGTH - 2); if (index(at, root) == 1) at = substr(at, length(root) + 1); print fn " " at " (" t ")" }' $$tmp/s >>$$tmp/all; \
	done; \
	sort -u $$tmp/all >$$tmp/fma; \
	for f in $(FMA_CHECK_ALLOW); do grep -v -F "$$f " $$tmp/fma >$$tmp/keep; mv $$tmp/keep $$tmp/fma; done; \
	if [ -s $$tmp/fma ]; then \
		sed 's/^/fma-check: fused multiply-add in /' $$tmp/fma; \
		echo "fma-check: $$(cut -d' ' -f1 $$tmp/fma | sort -u | wc -l) functions would compute other numbers than an unfused build; round the product first, e.g. float64(x*y) + z"; exit 1; \
	fi; \
	echo "fma-check: no fused multiply-add in the Go code of $(words $(MODULE_PATHS)) modules ($(FMA_CHECK_TARGETS))"

deps: npm-deps sf-npm
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

# Stockfish 17.1 and 18 as npm packages (stockfish@17.1.0, stockfish@18.0.8:
# WebAssembly builds by Chess.com, GPL-3.0; 147 and 168 MB) for the sf17.1
# tests: downloaded once into the user's cache, never into the repository.
# The tests check each against its pinned SHA-1, unpack it there, extract
# its nets into the net cache and run its engine with node as the reference.
SF_NPM := $(or $(NNUELAB_NPM_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/nnuelab/npm)
SF_NPM_VERSIONS := 17.1.0 18.0.8

sf-npm: $(foreach v,$(SF_NPM_VERSIONS),$(SF_NPM)/stockfish-$(v).tgz)

$(SF_NPM)/stockfish-%.tgz:
	@echo "downloading the npm package stockfish@$* (Stockfish as WebAssembly, GPL-3.0) into $(SF_NPM) for the tests"
	@mkdir -p $(SF_NPM)
	@tmp=$$(mktemp -d $(SF_NPM)/.pack-XXXXXX) && (cd $$tmp && npm pack --silent stockfish@$* >/dev/null) && mv $$tmp/stockfish-$*.tgz $@; status=$$?; rm -rf $$tmp; exit $$status

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

# Go tools the checks run, pinned, installed by `go install` from the Go
# module proxy into the user's cache (never into the repository), once:
# `make tools` (or the first `make check`) fetches them and the modules
# `go mod tidy` looks at; after that both checks run offline (GOPROXY=off,
# so they fail, naming `make tools`, rather than reach the network).
TOOLS_DIR := $(or $(NNUELAB_TOOLS),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/nnuelab/tools)
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(TOOLS_DIR)/staticcheck-$(STATICCHECK_VERSION)/staticcheck
# go mod tidy also reads the tests' dependencies of every dependency, which
# no build fetches: they are fetched once per go.mod/go.sum content.
GOMOD_SUM := $(shell cat $(foreach m,$(MODULES),$(m)/go.mod $(m)/go.sum) 2>/dev/null | sha256sum | cut -c1-16)
TIDY_STAMP := $(TOOLS_DIR)/tidy-modules-$(GOMOD_SUM).stamp

tools: $(STATICCHECK) $(TIDY_STAMP)

$(STATICCHECK):
	@echo "installing staticcheck $(STATICCHECK_VERSION) into $(dir $@) (once; from the Go module proxy)"
	@mkdir -p $(dir $@)
	GOBIN=$(dir $@) GOFLAGS= $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(TIDY_STAMP):
	@echo "fetching the modules go mod tidy reads (once per go.mod/go.sum; from the Go module proxy)"
	@mkdir -p $(dir $@)
	@for m in $(MODULES); do (cd $$m && $(GO) mod tidy -diff >/dev/null 2>&1); done; touch $@

# staticcheck's default checks on every module of the workspace; a finding
# is fixed, or suppressed where it stands with a //lint:ignore naming why.
staticcheck: $(STATICCHECK)
	GOPROXY=off $(STATICCHECK) $(PATTERNS)

# Every module's go.mod and go.sum are what `go mod tidy` writes.
tidy-check: $(TIDY_STAMP)
	@status=0; for m in $(MODULES); do \
		out=$$(cd $$m && GOPROXY=off $(GO) mod tidy -diff 2>&1) || { echo "go mod tidy would change $$m (run go mod tidy there; make tools if a module is missing):"; echo "$$out"; status=1; }; \
	done; [ $$status = 0 ] && echo "tidy-check: every go.mod and go.sum is tidy"; exit $$status

# The amd64 assembly of engine/nnue/simd and nets/train/vec is generated by
# internal/asmgen (avo), a module of its own outside the workspace so that
# avo is not a requirement of nnuelab: `make generate` rewrites the .s files
# and their Go declarations; asm-check (part of make test) vets the generator
# and fails when the committed files differ from what it writes.
generate:
	$(GO) generate ./engine/nnue/simd ./nets/train/vec

asm-check:
	cd internal/asmgen && GOWORK=off $(GO) vet ./... && GOWORK=off $(GO) test -count=1 ./...

# The fast tier: no apt, no npm, no network (beyond the Go modules that any
# build of nnuelab fetches once, and the tools above). Tests that need
# Stockfish, Node.js, npm's Stockfish packages or a Slurm cluster say so
# (internal/testtier) and are left out here, as are the long variants of
# tests that honour -short; make test and CI run them, and there a missing
# program fails its test. Time: see the README.
check: fmt-check vet staticcheck tidy-check asm-check
	NNUELAB_CHECK=1 $(GO) test -short -count=1 $(PATTERNS)
	@echo "make check: passed (tests needing Stockfish, Node.js, npm packages or Slurm are left to make test)"

test: deps fmt-check vet asm-check arch-check fma-check
	$(GO) test -count=1 $(PATTERNS)
	$(MAKE) reports-check
	# The networks again on the pure-Go kernels: AVX2 and Go must agree.
	$(GO) test -count=1 -tags purego ./engine/nnue/...
	# Lazy SMP under the race detector: the shared table and cloned evaluators.
	$(GO) test -count=1 -race -run 'TTConcurrent|Pool|Ponder|ClonedEvaluators' ./engine/search ./nets
	# The Node.js plugin's own unit tests (the protocol is tested from Go).
	cd $(NODE_PLUGIN) && npm test

# Every committed report is rewritten from the committed results alone (no
# file outside the repository, no task run) and must come out byte-identical;
# so must docs/claims.md's table (docs/claims.toml read against the results)
# and docs/strength.md's ladder tables and clock figures (docs/strength/ladder.toml
# and its matches).
reports-check: build
	@tmp=$$(mktemp -d); status=0; \
	for f in experiments/*.toml; do \
		name=$$(basename $$f .toml); \
		[ -f results/$$name/results.jsonl ] || continue; \
		./$(EXE) experiment report $$f --report-dir $$tmp >/dev/null || status=1; \
	done; \
	diff -r $$tmp docs/reports >/dev/null || { echo "reports differ from their results:"; diff -rq $$tmp docs/reports; status=1; }; \
	for d in docs/reports/*.md; do [ -f $$tmp/$$(basename $$d) ] || { echo "$$d: not regenerated"; status=1; }; done; \
	./$(EXE) experiment claims --check || status=1; \
	./$(EXE) ladder --report-only --check >/dev/null || status=1; \
	rm -rf $$tmp; [ $$status = 0 ] && echo "reports-check: every report and the claims table regenerate byte-identically"; exit $$status

# docs/nets: one page per shipped net (figures and numbers from `nnuelab nets
# show`, activations over the fresh validation positions) and the shipped
# nets side by side (shipped.md); docs/nets/README.md is written by hand.
NETS_DOCS_DATA := datasets/fresh-val/fresh-sf500.bin
nets-docs: build
	./$(EXE) nets show --shipped --data $(NETS_DOCS_DATA) --top 4 --threads 2 --out docs/nets --name shipped
