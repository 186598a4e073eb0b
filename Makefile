# The whole test suite: vet, formatting, then every package's tests against a
# real local avalanchego network (built once, into bin/) and both stores.
GO ?= go
TEST_TIMEOUT ?= 60m
# FUZZTIME is each fuzz target's budget in `make fuzz`.
FUZZTIME ?= 3s
# FUZZMINIMIZETIME bounds the minimizing of new inputs (off in the short runs).
FUZZMINIMIZETIME ?= 0

.PHONY: test check build localnet bench fuzz

test: check localnet
	AVAINDEX_LOCALNET_BIN=$(CURDIR)/bin/localnet $(GO) test -count=1 -v -timeout $(TEST_TIMEOUT) ./...
	$(MAKE) fuzz

# Every Go fuzz target runs for FUZZTIME (scripts/fuzz.sh), which prints
# the executions of each and their total. Plain `go test` already runs each
# target's seed corpus (f.Add and testdata/fuzz/FuzzX/) as a regression test.
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZMINIMIZETIME=$(FUZZMINIMIZETIME) scripts/fuzz.sh

check:
	$(GO) vet ./...
	@out="$$(gofmt -l $$(git ls-files '*.go'))"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

build:
	$(GO) build -buildvcs=auto -o bin/avaindex ./cmd/avaindex

localnet:
	$(GO) build -o bin/localnet ./cmd/localnet

bench: localnet
	AVAINDEX_LOCALNET_BIN=$(CURDIR)/bin/localnet $(GO) test -run '^$$' -bench . -benchmem ./...
