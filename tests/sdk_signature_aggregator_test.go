package tests

import (
	"context"
	"encoding/hex"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// sdkWarpFacts are what tests/sdk/signatureaggregator.test.mjs checks the
// SDK's answers against.
type sdkWarpFacts struct {
	Network             string `json:"network"`
	SignatureAggregator struct {
		// ConversionTx converted an L1 whose validator is the node;
		// ConversionMessage is its SubnetToL1Conversion warp message
		// (unsigned, hex), built here as the P-chain builds it.
		ConversionTx      string `json:"conversionTx"`
		ConversionMessage string `json:"conversionMessage"`
		// WarpLogData is a C-chain SendWarpMessage log's data and
		// WarpMessage the unsigned message it carries (hex).
		WarpLogData string `json:"warpLogData"`
		WarpMessage string `json:"warpMessage"`
		UnknownTx   string `json:"unknownTx"`
	} `json:"signatureAggregator"`
}

// TestSDKSignatureAggregator runs the real @avalanche-sdk/chainkit client's
// signatureAggregator.aggregate and .get against avaindex on the custom
// network, where the node signs: the SDK must accept the 201 answers (and
// their bodies, which it validates) and report the errors as its typed
// errors.
func TestSDKSignatureAggregator(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the custom network and Node.js")
	}
	installSDK(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()

	n := testnet.GetCustom(t)
	spec, err := n.NodeAsL1Validator(ctx, 100, testnet.L1ValidatorBalance)
	if err != nil {
		t.Fatal(err)
	}
	l1, err := n.CreateL1With(ctx, []testnet.L1ValidatorSpec{spec})
	if err != nil {
		t.Fatal(err)
	}
	var facts sdkWarpFacts
	facts.Network = "testnet"
	sa := &facts.SignatureAggregator
	sa.ConversionTx = l1.ConvertSubnetToL1Tx.String()
	sa.ConversionMessage = hex.EncodeToString(conversionMessage(t, n, l1, []testnet.L1ValidatorSpec{spec}).Bytes())
	logData := sendWarp(t, ctx, n.SendEVMTx, []byte("avaindex sdk warp test "+time.Now().String()))
	values, err := warpABI.Events["SendWarpMessage"].Inputs.NonIndexed().Unpack(logData)
	if err != nil {
		t.Fatal(err)
	}
	sa.WarpLogData = hex.EncodeToString(logData)
	sa.WarpMessage = hex.EncodeToString(values[0].([]byte))
	sa.UnknownTx = ids.GenerateTestID().String()
	factsFile := writeFacts(t, facts)

	base := startService(t, n.URL, dbtest.SQLite(t), "--genesis-file", n.GenesisFile, "--network-alias", "testnet")
	indexedNow(t, n, base)

	runSDK(t, ctx, base, factsFile, "signatureaggregator.test.mjs")
}
