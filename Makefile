# `make EXE=path/name` builds the engine binary (the OpenBench convention);
# `make test` checks formatting, vets and tests every module in go.work,
# installing the external programs the tests need when they are missing.

EXE ?= nnuelab
GO ?= go

# Every module of the workspace, as package patterns (./... alone would test
# only the root module).
MODULES := $(shell $(GO) list -m -f '{{.Dir}}' 2>/dev/null)
PATTERNS := $(foreach m,$(MODULES),$(m)/...)

.PHONY: all build test deps vet fmt-check

all: build

build:
	$(GO) build -trimpath -o $(EXE) ./cmd/nnuelab

deps:
	@if [ ! -x /usr/games/stockfish ]; then \
		echo "installing stockfish (Debian) for the tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stockfish; \
	fi

fmt-check:
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PATTERNS)

test: deps fmt-check vet
	$(GO) test -count=1 $(PATTERNS)
	# The networks again on the pure-Go kernels: AVX2 and Go must agree.
	$(GO) test -count=1 -tags purego ./engine/nnue/...
