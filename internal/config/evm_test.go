package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEVMChainsFromFile(t *testing.T) {
	file := writeFile(t, "avaindex.yaml", `
node-url: http://127.0.0.1:9650
evm-chains:
  - rpcUrl: http://127.0.0.1:9650/ext/bc/2Z36RnQuk1hvsnFeGWzfZUfXNr7w1SjzmDQ78YxfTVNAkDq3nZ/rpc
    wsUrl: ws://127.0.0.1:9650/ext/bc/2Z36RnQuk1hvsnFeGWzfZUfXNr7w1SjzmDQ78YxfTVNAkDq3nZ/ws
    name: Dexalot
    description: An L1 of the local network
    logoUri: https://example.org/logo.png
    explorerUrl: https://explorer.example.org
    networkToken: {name: Dexalot, symbol: ALOT, decimals: 18, logoUri: https://example.org/alot.png}
    multicall: "0xcA11bde05977b3631167028862bE2a173976CA11"
    enabledFeatures: [teleporter, nftIndexing]
    private: true
    isTestnet: true
c-chain:
  name: My C-Chain
  explorerUrl: https://explorer.example.org/c
`)
	c, err := Load("t", []string{"--config", file, "--evm-rpc-url", "https://rpc.example.org/ext/bc/x/rpc",
		"--contract-metadata-file", "a.json", "--contract-metadata-file", "b.json"}, env(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.EVMChains) != 2 {
		t.Fatalf("EVMChains = %+v", c.EVMChains)
	}
	e := c.EVMChains[0]
	if e.Name != "Dexalot" || e.NetworkToken.Symbol != "ALOT" || e.NetworkToken.Decimals == nil || *e.NetworkToken.Decimals != 18 ||
		!e.Private || e.IsTestnet == nil || !*e.IsTestnet || !reflect.DeepEqual(e.EnabledFeatures, []string{"teleporter", "nftIndexing"}) ||
		e.WSURL == "" || e.Multicall == "" || e.ExplorerURL == "" || e.LogoURI == "" {
		t.Errorf("entry from the file = %+v", e)
	}
	if got := c.EVMChains[1]; !reflect.DeepEqual(got, EVMChain{RPCURL: "https://rpc.example.org/ext/bc/x/rpc"}) {
		t.Errorf("entry from --evm-rpc-url = %+v", got)
	}
	if c.CChain.Name != "My C-Chain" || c.CChain.ExplorerURL != "https://explorer.example.org/c" {
		t.Errorf("c-chain = %+v", c.CChain)
	}
	if !reflect.DeepEqual(c.ContractMetadataFiles, []string{"a.json", "b.json"}) {
		t.Errorf("contract metadata files = %q", c.ContractMetadataFiles)
	}
	if c.TeleporterMessenger != DefaultTeleporterMessenger {
		t.Errorf("teleporter messenger = %q", c.TeleporterMessenger)
	}

	c, err = Load("t", nil, env(map[string]string{"AVAINDEX_EVM_RPC_URL": "http://a/rpc,http://b/rpc",
		"AVAINDEX_TELEPORTER_ADDRESS": "0x0000000000000000000000000000000000000001"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.EVMChains) != 2 || c.EVMChains[1].RPCURL != "http://b/rpc" || c.TeleporterMessenger != "0x0000000000000000000000000000000000000001" {
		t.Errorf("from the environment: %+v, %q", c.EVMChains, c.TeleporterMessenger)
	}
}

func TestEVMChainErrors(t *testing.T) {
	for _, tc := range []struct {
		file string
		args []string
		want string
	}{
		{"evm-chains:\n  - rpcUrl: ftp://x\n", nil, "evm-chains[0]: rpcUrl must be"},
		{"evm-chains:\n  - rpcUrl: http://x/rpc\n    chainName: y\n", nil, "field chainName not found"},
		{"evm-chains:\n  - rpcUrl: http://x/rpc\n    wsUrl: http://x/ws\n", nil, "wsUrl must be"},
		{"evm-chains:\n  - rpcUrl: http://x/rpc\n    blockchainId: nope\n", nil, "blockchainId"},
		{"evm-chains:\n  - rpcUrl: http://x/rpc\n    multicall: 0x12\n", nil, "multicall"},
		{"evm-chains:\n  - rpcUrl: http://x/rpc\n    enabledFeatures: [bridges]\n", nil, `"bridges" is not one of`},
		{"evm-chains:\n  - rpcUrl: http://x/rpc\n    networkToken: {decimals: 300}\n", nil, "cannot unmarshal !!int `300` into uint8"},
		{"evm-chains:\n  - rpcUrl: http://x/rpc\n", []string{"--evm-rpc-url", "http://x/rpc"}, "configured twice"},
		{"c-chain:\n  rpcUrl: http://x/rpc\n", nil, "c-chain: rpcUrl"},
		{"c-chain:\n  enabledFeatures: [x]\n", nil, "c-chain: enabledFeatures"},
		{"evm-chain: []\n", nil, `unknown key "evm-chain"`},
		{"", []string{"--teleporter-address", "0x1"}, "--teleporter-address"},
		{"", []string{"--evm-vm-id", "subnetevm"}, `--evm-vm-id "subnetevm"`},
		{"", []string{"--evm-vm-id", "none", "--evm-vm-id", "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"}, "--evm-vm-id none"},
	} {
		file := writeFile(t, "c.yaml", tc.file)
		_, err := Load("t", append([]string{"--config", file}, tc.args...), env(nil), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %q: error = %v, want one mentioning %q", tc.file, tc.args, err, tc.want)
		}
	}
}

func TestEVMVMIDs(t *testing.T) {
	subnetEVM := "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"
	other := "2ZW6HUePBW2dP7dBGa5stjXe1uvK9LwEgrjebDwXEyL5bDMWWS"
	for _, tc := range []struct {
		args []string
		want []string // nil: the default
	}{
		{nil, nil},
		{[]string{"--evm-vm-id", "none"}, []string{}},
		{[]string{"--evm-vm-id", subnetEVM, "--evm-vm-id", other}, []string{subnetEVM, other}},
	} {
		c, err := Load("t", tc.args, env(nil), nil)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if (tc.want == nil) != (c.DiscoverEVMVMIDs == nil) || len(c.DiscoverEVMVMIDs) != len(tc.want) {
			t.Errorf("%q: DiscoverEVMVMIDs = %v, want %v", tc.args, c.DiscoverEVMVMIDs, tc.want)
			continue
		}
		for i, id := range c.DiscoverEVMVMIDs {
			if id.String() != tc.want[i] {
				t.Errorf("%q: DiscoverEVMVMIDs[%d] = %s, want %s", tc.args, i, id, tc.want[i])
			}
		}
	}
}
