package contracts

import (
	"math/big"
	"testing"

	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
)

// TestICMReleaseArtifacts checks the replayed release: a keyless
// pre-EIP-155 transaction from the canonical deployer whose first
// creation is the canonical messenger address.
func TestICMReleaseArtifacts(t *testing.T) {
	tx := MessengerDeploymentTx()
	if tx.Protected() {
		t.Error("the deployment is protected by a chain id; keyless deployments are not")
	}
	from, err := types.Sender(types.HomesteadSigner{}, tx)
	if err != nil {
		t.Fatal(err)
	}
	if from != ICMMessengerDeployer {
		t.Errorf("signed by %s, want %s", from, ICMMessengerDeployer)
	}
	if tx.To() != nil || tx.Nonce() != 0 {
		t.Errorf("to %v nonce %d: not a first contract creation", tx.To(), tx.Nonce())
	}
	if got := crypto.CreateAddress(from, 0); got != ICMMessenger {
		t.Errorf("creates %s, want %s", got, ICMMessenger)
	}
	if cost := new(big.Int).Mul(tx.GasPrice(), new(big.Int).SetUint64(tx.Gas())); cost.Cmp(icmDeployerFunds) > 0 {
		t.Errorf("costs %s, more than the %s the deployer is given", cost, icmDeployerFunds)
	}
	if len(icmFile("TeleporterRegistry_Bytecode_v1.0.0.txt")) < 1000 {
		t.Error("the registry's creation code is short")
	}
}
