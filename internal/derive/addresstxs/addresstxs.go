// Package addresstxs derives the address indexes. On the EVM chains
// (Apply): for each tx, the addresses that took part in it and how
// (internal.EVMAddressRole), from the tx, its token transfers and its
// listed internal txs. On the primary network's chains (UTXOs, Atomic):
// each tx's history rows, which the store reads from the owners of the
// UTXOs it stored; the derivation says which ranges and joins a batch
// needs, and adds the EVM addresses of the C-chain's atomic txs.
package addresstxs

import (
	"bytes"
	"context"
	"slices"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// Writer writes the index's rows (store.EVMTx).
type Writer interface {
	WriteAddressTxs(ctx context.Context, txs []internal.EVMAddressTx) error
}

// Apply writes the index's rows of the blocks' txs.
func Apply(ctx context.Context, w Writer, blocks []*internal.EVMBlockData) error {
	var out []internal.EVMAddressTx
	for _, b := range blocks {
		out = appendBlock(out, b)
	}
	return w.WriteAddressTxs(ctx, out)
}

// appendBlock appends the rows of b's txs to out. A tx's sender,
// recipient and created contract are RoleNative; the other parties of its
// transfers and listed internal txs RoleOther, each address once per tx
// and role; the parties of its listed internal txs RoleInternal too.
func appendBlock(out []internal.EVMAddressTx, b *internal.EVMBlockData) []internal.EVMAddressTx {
	if len(b.Txs) == 0 {
		return out
	}
	pos := make(map[common.Hash]int, len(b.Txs))
	for i := range b.Txs {
		pos[b.Txs[i].Hash] = i
	}
	var others, internals [][]common.Address
	for _, t := range b.Transfers {
		if i, ok := pos[t.TxHash]; ok {
			if others == nil {
				others = make([][]common.Address, len(b.Txs))
			}
			others[i] = append(others[i], t.From, t.To)
		}
	}
	for k := range b.InternalTxs {
		it := &b.InternalTxs[k]
		i, ok := pos[it.TxHash]
		if !ok || !it.Listed() {
			continue
		}
		if others == nil {
			others = make([][]common.Address, len(b.Txs))
		}
		if internals == nil {
			internals = make([][]common.Address, len(b.Txs))
		}
		others[i] = append(others[i], it.From, it.To)
		internals[i] = append(internals[i], it.From, it.To)
	}
	for i := range b.Txs {
		t := &b.Txs[i]
		row := func(a common.Address, role internal.EVMAddressRole) internal.EVMAddressTx {
			return internal.EVMAddressTx{Address: a, Role: role, Block: b.Number, TxIndex: t.Index}
		}
		native := make([]common.Address, 1, 3)
		native[0] = t.From
		for _, a := range []*common.Address{t.To, t.ContractAddress} {
			if a != nil && !slices.Contains(native, *a) {
				native = append(native, *a)
			}
		}
		for _, a := range native {
			out = append(out, row(a, internal.RoleNative))
		}
		if others != nil {
			for _, a := range distinct(others[i]) {
				if !slices.Contains(native, a) {
					out = append(out, row(a, internal.RoleOther))
				}
			}
		}
		if internals != nil {
			for _, a := range distinct(internals[i]) {
				out = append(out, row(a, internal.RoleInternal))
			}
		}
	}
	return out
}

// distinct sorts addrs and drops repeats, in place.
func distinct(addrs []common.Address) []common.Address {
	if len(addrs) < 2 {
		return addrs
	}
	slices.SortFunc(addrs, func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	return slices.Compact(addrs)
}
