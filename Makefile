# The whole test suite: vet, formatting, then every package's tests against a
# real local avalanchego network (built once, into bin/) and both stores.
GO ?= go
TEST_TIMEOUT ?= 60m
# FUZZTIME is each fuzz target's budget in `make fuzz`.
FUZZTIME ?= 3s
# FUZZMINIMIZETIME bounds the minimizing of new inputs (off in the short runs).
FUZZMINIMIZETIME ?= 0

.PHONY: test check build localnet l1node bench fuzz loadtest

# The subnet-evm VM id: the plugin's file name in the node's --plugin-dir.
SUBNET_EVM_VMID := srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy

test: check localnet l1node
	AVAINDEX_LOCALNET_BIN=$(CURDIR)/bin/localnet AVAINDEX_L1NODE_DIR=$(CURDIR)/bin/l1node $(GO) test -count=1 -v -timeout $(TEST_TIMEOUT) ./...
	$(MAKE) fuzz

# Every Go fuzz target runs for FUZZTIME (scripts/fuzz.sh), which prints
# the executions of each and their total. Plain `go test` already runs each
# target's seed corpus (f.Add and testdata/fuzz/FuzzX/) as a regression test.
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZMINIMIZETIME=$(FUZZMINIMIZETIME) scripts/fuzz.sh

check:
	$(GO) vet ./...
	cd tools/l1node && $(GO) vet ./...
	@out="$$(gofmt -l $$(git ls-files '*.go'))"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

build:
	$(GO) build -buildvcs=auto -o bin/avaindex ./cmd/avaindex

localnet:
	$(GO) build -o bin/localnet ./cmd/localnet

# The L1 node: avalanchego v1.14.0 and the subnet-evm v0.8.0 plugin, from
# their own module (tools/l1node), into bin/l1node/node and
# bin/l1node/plugins/$(SUBNET_EVM_VMID). -pgo=off lets both mains share one
# compilation of their dependencies.
l1node:
	cd tools/l1node && $(GO) build -pgo=off -o $(CURDIR)/bin/l1node/ ./node ./subnetevm
	mkdir -p bin/l1node/plugins
	mv -f bin/l1node/subnetevm bin/l1node/plugins/$(SUBNET_EVM_VMID)

bench: localnet
	AVAINDEX_LOCALNET_BIN=$(CURDIR)/bin/localnet $(GO) test -run '^$$' -bench . -benchmem ./...

# The load harness (cmd/loadtest, docs/development.md): a real node, a grown
# P-chain, avaindex on SQLite and PostgreSQL, wrk against all three. Not part
# of `make test`. LOADTEST_FLAGS passes flags, e.g. -duration 3s.
LOADTEST_FLAGS ?=
loadtest: localnet build
	@command -v wrk >/dev/null || apt-get install -y wrk || (apt-get update && apt-get install -y wrk)
	$(GO) run ./cmd/loadtest -localnet $(CURDIR)/bin/localnet -avaindex $(CURDIR)/bin/avaindex $(LOADTEST_FLAGS)
