package contracts

import (
	"bytes"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"
)

// TestBuildIsFresh compiles the sources again with the pinned solcjs and
// fails when the committed build/ differs from what they compile to (a
// source edited without `go generate`, or a build edited by hand).
func TestBuildIsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("npm ci and solcjs take a while")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed: %v", tool, err)
			}
			t.Skipf("SKIP: %s is not installed (%v); CI fails here", tool, err)
		}
	}
	if _, err := os.Stat("node_modules/solc"); err != nil {
		ci := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		if out, err := ci.CombinedOutput(); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}
	dir := t.TempDir()
	if out, err := exec.Command("node", "compile.mjs", dir).CombinedOutput(); err != nil {
		t.Fatalf("node compile.mjs: %v\n%s", err, out)
	}
	fresh, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadDir("build")
	if err != nil {
		t.Fatal(err)
	}
	if len(fresh) != len(committed) {
		t.Errorf("build/ has %d files, the sources compile to %d: run go generate ./internal/testing/contracts", len(committed), len(fresh))
	}
	for _, f := range fresh {
		want, _ := os.ReadFile(filepath.Join(dir, f.Name()))
		got, err := os.ReadFile(filepath.Join("build", f.Name()))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("build/%s differs from what the sources compile to (%v): run go generate ./internal/testing/contracts", f.Name(), err)
		}
	}
}

// TestABI checks the helpers against the standards' selectors and
// topics, computed here from the signatures.
func TestABI(t *testing.T) {
	sel := func(sig string) []byte { return crypto.Keccak256([]byte(sig))[:4] }
	a, b := common.HexToAddress("0x01"), common.HexToAddress("0x02")
	for _, c := range []struct {
		name string
		in   []byte
		sig  string
	}{
		{"mint20", MintERC20(a, big.NewInt(1)), "mint(address,uint256)"},
		{"transfer20", TransferERC20(a, big.NewInt(1)), "transfer(address,uint256)"},
		{"approve20", ApproveERC20(a, big.NewInt(1)), "approve(address,uint256)"},
		{"transferFrom20", TransferFromERC20(a, b, big.NewInt(1)), "transferFrom(address,address,uint256)"},
		{"transferFrom721", TransferFromERC721(a, b, 1), "transferFrom(address,address,uint256)"},
		{"safeTransferFrom721", SafeTransferFromERC721(a, b, 1), "safeTransferFrom(address,address,uint256)"},
		{"setTokenURI", SetTokenURI(1, "x"), "setTokenURI(uint256,string)"},
		{"refreshMetadata", RefreshMetadata(1, 2), "refreshMetadata(uint256,uint256)"},
		{"safeTransferFrom1155", SafeTransferFromERC1155(a, b, 1, 2), "safeTransferFrom(address,address,uint256,uint256,bytes)"},
		{"safeBatchTransferFrom1155", SafeBatchTransferFromERC1155(a, b, []int64{1}, []int64{2}), "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)"},
		{"setURI", SetURI(1, "x"), "setURI(uint256,string)"},
		{"create", FactoryCreate(1), "create(uint256)"},
		{"create2", FactoryCreate2(common.Hash{}, 1), "create2(bytes32,uint256)"},
		{"forward", FactoryForward(a, b), "forward(address[])"},
	} {
		if !bytes.Equal(c.in[:4], sel(c.sig)) {
			t.Errorf("%s: selector %x, want %x (%s)", c.name, c.in[:4], sel(c.sig), c.sig)
		}
	}
	for _, c := range []struct {
		c     *Contract
		event string
		sig   string
	}{
		{Token20, "Transfer", "Transfer(address,address,uint256)"},
		{NFT721, "Transfer", "Transfer(address,address,uint256)"},
		{NFT721, "MetadataUpdate", "MetadataUpdate(uint256)"},
		{NFT721, "BatchMetadataUpdate", "BatchMetadataUpdate(uint256,uint256)"},
		{Multi1155, "TransferSingle", "TransferSingle(address,address,address,uint256,uint256)"},
		{Multi1155, "TransferBatch", "TransferBatch(address,address,address,uint256[],uint256[])"},
		{Multi1155, "URI", "URI(string,uint256)"},
	} {
		if got, want := c.c.Topic(c.event), crypto.Keccak256Hash([]byte(c.sig)); got != want {
			t.Errorf("%s.%s: topic %s, want %s", c.c.Name, c.event, got, want)
		}
	}
}
