# The whole test suite: vet, formatting, then every package's tests against a
# real local avalanchego network (built once, into bin/) and both stores.
GO ?= go
TEST_TIMEOUT ?= 60m

.PHONY: test check build localnet bench

test: check localnet
	AVAINDEX_LOCALNET_BIN=$(CURDIR)/bin/localnet $(GO) test -count=1 -v -timeout $(TEST_TIMEOUT) ./...

check:
	$(GO) vet ./...
	@out="$$(gofmt -l $$(git ls-files '*.go'))"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

build:
	$(GO) build -buildvcs=auto -o bin/avaindex ./cmd/avaindex

localnet:
	$(GO) build -o bin/localnet ./cmd/localnet

bench: localnet
	AVAINDEX_LOCALNET_BIN=$(CURDIR)/bin/localnet $(GO) test -run '^$$' -bench . -benchmem ./...
