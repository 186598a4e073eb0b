package pchain

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
)

// TxJSON returns the node's JSON form of the signed tx with bytes b
// (platform.getTx with encoding "json").
func (f *Formatter) TxJSON(b []byte) (json.RawMessage, error) {
	tx, err := txs.Parse(txs.Codec, b)
	if err != nil {
		return nil, fmt.Errorf("parsing stored P-chain tx: %w", err)
	}
	tx.Unsigned.InitCtx(f.ctx)
	return json.Marshal(tx)
}

// genesisTxs memoizes GenesisTx: the txs of each genesis, by id.
var genesisTxs struct {
	mu sync.Mutex
	of map[ids.ID]map[ids.ID][]byte
}

// GenesisTx returns the bytes of the tx txID of the genesis genesisID (the
// parent id of the P-chain block at height 0): a genesis validator's or a
// chain's creation (the X- and C-chain's), which the node serves as
// committed txs though no block carries them. ok is false when the
// genesis is unknown or holds no such tx.
func GenesisTx(genesisID, txID ids.ID) (_ []byte, ok bool, _ error) {
	genesisTxs.mu.Lock()
	defer genesisTxs.mu.Unlock()
	byID, known := genesisTxs.of[genesisID]
	if !known {
		g, found, err := parsedGenesis(genesisID)
		if err != nil || !found {
			return nil, false, err
		}
		byID = map[ids.ID][]byte{}
		for _, tx := range append(slices.Clone(g.Validators), g.Chains...) {
			byID[tx.ID()] = tx.Bytes()
		}
		if genesisTxs.of == nil {
			genesisTxs.of = map[ids.ID]map[ids.ID][]byte{}
		}
		genesisTxs.of[genesisID] = byID
	}
	b, ok := byID[txID]
	return b, ok, nil
}
