package pchain

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/hashing"
)

func TestGenesisRegistry(t *testing.T) {
	// A built-in network's genesis is known without registration.
	local, _, err := genesis.FromConfig(genesis.GetConfig(constants.LocalID))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := genesisBytes(hashing.ComputeHash256Array(local)); err != nil || !ok {
		t.Fatalf("local genesis not known: %t, %v", ok, err)
	}

	// A custom genesis is known once its file is registered.
	cfg := *genesis.GetConfig(constants.LocalID)
	cfg.Message = "a custom network"
	custom, _, err := genesis.FromConfig(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	id := ids.ID(hashing.ComputeHash256Array(custom))
	if _, ok, _ := genesisBytes(id); ok {
		t.Fatal("custom genesis known before registration")
	}
	unparsed, err := cfg.Unparse()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(unparsed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "genesis.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, err := ReadGenesisFile(path)
	if err != nil {
		t.Fatal(err)
	}
	RegisterGenesis(fromFile)
	got, ok, err := genesisBytes(id)
	if err != nil || !ok || string(got) != string(custom) {
		t.Fatalf("registered genesis: ok=%t err=%v", ok, err)
	}
	if _, err := ReadGenesisFile(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("a missing genesis file was accepted")
	}
}
