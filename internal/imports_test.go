package internal

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/avaindex/avaindex/"

// allowedImports is every import allowed between avaindex's internal
// packages (production files; tests may import more), by importer. The
// flow is node → decode → derive → store → surfaces, with wiring on top:
// a package imports only what is below it. A new arrow goes here, in the
// importer's layer, only if it follows the flow.
var allowedImports = map[string][]string{
	// Foundations: imported from anywhere, import nothing of ours (but
	// each other, as listed).
	"internal":              nil,
	"internal/coalesce":     nil,
	"internal/derrors":      nil,
	"internal/instrument":   nil,
	"internal/jsonrpc":      nil,
	"internal/jsonscan":     nil,
	"internal/ratelimit":    nil,
	"internal/database":     {"internal/derrors"},
	"internal/chainmetrics": nil,
	"internal/localnet":     nil,
	// The node that localnet configures, run in this process.
	"internal/localnet/inprocess": {"internal/localnet"},
	"internal/progress":           nil,
	"internal/param":              {"internal/derrors"},
	"internal/config":             {"internal", "internal/ratelimit"},

	// The node's client.
	"internal/node": {"internal", "internal/derrors", "internal/instrument", "internal/jsonscan"},

	// Decoders: pure functions of the node's bytes.
	"internal/utxo":   {"internal"},
	"internal/pchain": {"internal", "internal/utxo"},
	"internal/xchain": {"internal", "internal/utxo"},
	// A C-chain atomic tx's credentials are the X-chain's.
	"internal/cchain": {"internal", "internal/utxo", "internal/xchain"},
	// The C-chain's atomic txs in an EVM block.
	"internal/evm": {"internal", "internal/cchain", "internal/jsonscan"},

	// The derivation's nouns, pure, each over a writer it declares, and
	// each chain's ordered list of them.
	"internal/derive/addresstxs":    {"internal"},
	"internal/derive/balances":      {"internal"},
	"internal/derive/burned":        {"internal"},
	"internal/derive/erc20":         {"internal"},
	"internal/derive/metrics":       {"internal", "internal/chainmetrics"},
	"internal/derive/nfts":          {"internal"},
	"internal/derive/rewards":       {"internal"},
	"internal/derive/sharedmemory":  {"internal"},
	"internal/derive/staking":       {"internal"},
	"internal/derive/steps":         nil,
	"internal/derive/utxoset":       {"internal"},
	"internal/derive/webhookevents": {"internal"},
	"internal/derive/xstate": {"internal", "internal/derive/addresstxs", "internal/derive/burned", "internal/derive/metrics",
		"internal/derive/steps", "internal/derive/utxoset", "internal/derive/webhookevents"},
	"internal/derive/pstate": {"internal", "internal/derive/addresstxs", "internal/derive/burned", "internal/derive/metrics",
		"internal/derive/rewards", "internal/derive/sharedmemory", "internal/derive/staking", "internal/derive/steps",
		"internal/derive/utxoset", "internal/derive/webhookevents"},
	"internal/derive/cstate": {"internal", "internal/derive/addresstxs", "internal/derive/burned", "internal/derive/sharedmemory",
		"internal/derive/steps"},
	"internal/derive/evmstate": {"internal", "internal/derive/addresstxs", "internal/derive/balances",
		"internal/derive/burned", "internal/derive/erc20", "internal/derive/metrics", "internal/derive/nfts",
		"internal/derive/steps", "internal/derive/webhookevents"},

	// The store: tables, reads, cursors. It imports no decoder.
	"internal/store": {"internal", "internal/chainmetrics", "internal/database", "internal/derrors"},

	// Derivation: decoded values into the store's derived state, and the
	// rederive of stored blocks.
	"internal/derive": {"internal", "internal/cchain", "internal/derive/cstate", "internal/derive/erc20", "internal/derive/metrics", "internal/derive/nfts",
		"internal/derive/pstate", "internal/derive/xstate", "internal/pchain", "internal/progress",
		"internal/store", "internal/xchain"},

	// Workers: libraries run by internal/service.
	"internal/ingest": {"internal", "internal/cchain", "internal/derive/cstate", "internal/derive/evmstate", "internal/derive/pstate", "internal/derive/xstate", "internal/derrors", "internal/evm", "internal/instrument",
		"internal/node", "internal/pchain", "internal/progress", "internal/store", "internal/xchain"},
	"internal/nftmeta":          {"internal", "internal/instrument", "internal/progress", "internal/store"},
	"internal/usage":            {"internal", "internal/progress", "internal/store"},
	"internal/exports":          {"internal", "internal/instrument", "internal/progress", "internal/store"},
	"internal/webhooks":         {"internal/instrument", "internal/nftmeta", "internal/progress", "internal/store"},
	"internal/prices":           nil,
	"internal/warpagg":          {"internal/derrors", "internal/node", "internal/warpagg/p2pnet"},
	"internal/warpagg/p2pnet":   nil,
	"internal/warpagg/warptest": {"internal/warpagg/p2pnet"},
	"internal/evmchains": {"internal", "internal/config", "internal/derrors", "internal/node", "internal/pchain",
		"internal/store"},
	"internal/apikeys": {"internal/ratelimit", "internal/store"},

	// Surfaces: read the store through their own interfaces.
	"internal/api": {"internal", "internal/cchain", "internal/coalesce", "internal/derrors", "internal/evmchains", "internal/param",
		"internal/pchain", "internal/store", "internal/utxo", "internal/warpagg", "internal/xchain"},
	"internal/metricsapi": {"internal", "internal/chainmetrics", "internal/coalesce", "internal/derrors", "internal/param", "internal/store"},
	"internal/nodeapi":    {"internal", "internal/derrors", "internal/jsonrpc", "internal/node", "internal/pchain", "internal/store", "internal/xchain"},
	"internal/apidoc":     {"internal/api", "internal/derrors"},
	"internal/apidoc/gen": {"internal/api", "internal/apidoc", "internal/metricsapi", "internal/testing/openapitest"},
	"internal/server": {"internal", "internal/api", "internal/apidoc", "internal/apikeys", "internal/derrors",
		"internal/instrument", "internal/jsonrpc", "internal/metricsapi", "internal/progress", "internal/ratelimit"},

	// Wiring.
	"internal/service": {"internal", "internal/api", "internal/apikeys", "internal/config", "internal/database", "internal/derive",
		"internal/evmchains", "internal/exports", "internal/ingest", "internal/instrument", "internal/metricsapi", "internal/nftmeta",
		"internal/node", "internal/nodeapi", "internal/pchain", "internal/prices", "internal/progress",
		"internal/ratelimit", "internal/server", "internal/store", "internal/usage", "internal/warpagg", "internal/warpagg/p2pnet",
		"internal/webhooks"},
}

// TestImportsFollowTheFlow fails on an import between internal packages
// that allowedImports does not list.
func TestImportsFollowTheFlow(t *testing.T) {
	for _, v := range violations(internalImports(t, ".")) {
		t.Error(v)
	}
}

// TestImportsCheckFails checks the check: an arrow against the flow, an
// unknown package and a production import of a test helper are named.
func TestImportsCheckFails(t *testing.T) {
	got := violations(map[string][]string{
		"internal/node":           {"internal/derrors", "internal/pchain"},
		"internal/metricsapi":     {"internal/api"},
		"internal/newthing":       nil,
		"internal/api":            {"internal/testing/dbtest"},
		"internal/testing/dbtest": {"internal/store"},
		"internal/store":          {"internal/pchain"},
	})
	want := []string{
		"internal/api imports the test helper internal/testing/dbtest",
		"internal/metricsapi → internal/api is against the flow (not in allowedImports)",
		"package internal/newthing is not in allowedImports: add it in its layer",
		"internal/node → internal/pchain is against the flow (not in allowedImports)",
		"internal/store → internal/pchain is against the flow (not in allowedImports)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations = %q\nwant %q", got, want)
	}
}

// violations lists the imports against allowedImports. Test helpers
// (internal/testing/...) may import any package, and only tests,
// generators and commands import them.
func violations(imports map[string][]string) []string {
	var out []string
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		if strings.HasPrefix(pkg, "internal/testing/") {
			continue
		}
		allowed, known := allowedImports[pkg]
		if !known {
			out = append(out, fmt.Sprintf("package %s is not in allowedImports: add it in its layer", pkg))
			continue
		}
		for _, imp := range imports[pkg] {
			switch {
			case slices.Contains(allowed, imp):
			case strings.HasPrefix(imp, "internal/testing/"):
				out = append(out, fmt.Sprintf("%s imports the test helper %s", pkg, imp))
			default:
				out = append(out, fmt.Sprintf("%s → %s is against the flow (not in allowedImports)", pkg, imp))
			}
		}
	}
	return out
}

// internalImports returns, for each package under dir (the module's
// internal directory), the internal packages its non-test files import,
// as module-relative paths.
func internalImports(t *testing.T, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || (strings.HasPrefix(name, ".") && path != dir) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Join("internal", filepath.Dir(path)))
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			rel, ok := strings.CutPrefix(p, modulePath)
			if !ok || !strings.HasPrefix(rel, "internal") || slices.Contains(out[pkg], rel) {
				continue
			}
			out[pkg] = append(out[pkg], rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
