package evm

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// FuzzDecode decodes arbitrary node answers (block, receipts, traces) as
// one C-chain block, seeded with the blocks recorded from the real local
// network. A block that decodes has the number, hash and txs its JSON
// says, and resolves and classifies without panicking.
func FuzzDecode(f *testing.F) {
	_, blocks, cfg := recorded(f)
	for _, rb := range blocks {
		f.Add([]byte(rb.Block), []byte(rb.Receipts), []byte(rb.Traces))
	}
	f.Add([]byte(`null`), []byte(`[]`), []byte(nil))
	f.Fuzz(func(t *testing.T, block, receipts, traces []byte) {
		in := Input{Block: block, Receipts: receipts}
		if traces != nil {
			in.Traces = traces
		}
		b, err := Decode(cfg, in)
		if err != nil {
			return
		}
		var head struct {
			Number       string            `json:"number"`
			Hash         string            `json:"hash"`
			Transactions []json.RawMessage `json:"transactions"`
		}
		if err := json.Unmarshal(block, &head); err != nil {
			t.Fatalf("Decode accepted a block its JSON does not hold: %v", err)
		}
		n, err := strconv.ParseUint(strings.TrimPrefix(head.Number, "0x"), 16, 64)
		if err != nil || n != b.Number || !strings.EqualFold(common.HexToHash(head.Hash).Hex(), b.Hash.Hex()) || len(b.Txs) != len(head.Transactions) {
			t.Fatalf("block %q %q with %d txs decoded as %d %s with %d", head.Number, head.Hash, len(head.Transactions), b.Number, b.Hash.Hex(), len(b.Txs))
		}
		for i, tx := range b.Txs {
			if tx.BlockNumber != b.Number || tx.Index != uint32(i) {
				t.Fatalf("tx %d of block %d: %+v", i, b.Number, tx)
			}
		}
		if len(b.Unresolved) > 0 {
			bal := map[common.Address]*big.Int{}
			for _, a := range b.Unresolved {
				bal[a] = big.NewInt(1)
			}
			b.Resolve(bal)
		}
		types := map[common.Address]internal.ERCType{}
		for i, a := range b.TokenAddresses() {
			types[a] = []internal.ERCType{internal.ERC20, internal.ERC721, internal.ERC1155, internal.ERCUnknown}[i%4]
		}
		b.Classify(types)
	})
}
