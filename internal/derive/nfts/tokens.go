package nfts

import (
	"context"
	"math/big"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// TokenWriter is what the tokens' derivation reads and writes in the
// batch's transaction (store.EVMTx).
type TokenWriter interface {
	batch
	// NFTOwners returns the stored owners of those of tokens that have
	// one.
	NFTOwners(ctx context.Context, tokens []internal.NFTID) (map[internal.NFTID]common.Address, error)
	// NFTBalances returns the stored ERC-1155 balances of those of held
	// that have one.
	NFTBalances(ctx context.Context, held []internal.NFTHeld) (map[internal.NFTHeld]*big.Int, error)
	// WriteNFTs writes the batch's tokens (a token stored before keeps
	// its mint block, and its owner and URI unless the batch changed
	// them), the ERC-1155 balances it moved, the changes of the holders'
	// counts, and queues again the tokens of the metadata updates, after
	// the tokens.
	WriteNFTs(ctx context.Context, tokens []internal.NFTTouch, balances []internal.NFTUnits, holders []internal.NFTHolderDelta, refreshes []internal.NFTRefresh) error
}

// Tokens writes the tokens the batch's transfers and URI reads touched,
// the ERC-1155 balances its transfers moved, the holders' counts those
// change, and queues again the tokens of its BatchMetadataUpdate events.
// Blocks at or below the last applied were applied already and are
// skipped: balances and counts move by deltas.
func Tokens(ctx context.Context, w TokenWriter, blocks []*internal.EVMBlockData) error {
	applied, ok := w.Applied()
	touched := map[internal.NFTID]int{} // index in tokens
	var tokens []internal.NFTTouch
	touch := func(token common.Address, id *big.Int, typ internal.ERCType, block uint64) *internal.NFTTouch {
		k := internal.NFTID{Token: token, ID: common.BigToHash(id)}
		i, ok := touched[k]
		if !ok {
			i = len(tokens)
			touched[k] = i
			tokens = append(tokens, internal.NFTTouch{NFTID: k, Type: typ, First: block})
		}
		return &tokens[i]
	}
	deltas := map[internal.NFTHeld]*big.Int{}
	var held []internal.NFTHeld
	move := func(holder common.Address, k internal.NFTID, v *big.Int) {
		if holder == (common.Address{}) {
			return
		}
		h := internal.NFTHeld{Holder: holder, NFTID: k}
		d, ok := deltas[h]
		if !ok {
			d = new(big.Int)
			deltas[h] = d
			held = append(held, h)
		}
		d.Add(d, v)
	}
	var refreshes []internal.NFTRefresh
	for _, b := range blocks {
		if ok && b.Number <= applied {
			continue
		}
		for i := range b.Transfers {
			t := &b.Transfers[i]
			switch t.Type {
			case internal.ERC721:
				to := t.To
				touch(t.Token, t.TokenID, t.Type, b.Number).Owner = &to
			case internal.ERC1155:
				k := touch(t.Token, t.TokenID, t.Type, b.Number).NFTID
				value := t.Value
				if value == nil {
					value = new(big.Int)
				}
				move(t.From, k, new(big.Int).Neg(value))
				move(t.To, k, value)
			}
		}
		for _, u := range b.NFTURIs {
			tk := touch(u.Token, u.TokenID, u.Type, b.Number)
			tk.URIRead, tk.URI = true, u.URI
		}
		refreshes = append(refreshes, b.NFTRefreshes...)
	}
	if len(tokens) == 0 && len(refreshes) == 0 {
		return nil
	}

	counts := holderCounts{}
	if err := counts.owners(ctx, w, tokens); err != nil {
		return err
	}
	balances, err := counts.units(ctx, w, held, deltas)
	if err != nil {
		return err
	}
	return w.WriteNFTs(ctx, tokens, balances, counts.list(), refreshes)
}

// holderCounts are the changes of a batch to the holders' counts, in the
// order they were first changed.
type holderCounts struct {
	delta map[internal.NFTHolderDelta]int64 // keyed with Delta zero
	order []internal.NFTHolderDelta
}

func (h *holderCounts) add(contract common.Address, typ internal.ERCType, holder common.Address, d int64) {
	if holder == (common.Address{}) {
		return
	}
	if h.delta == nil {
		h.delta = map[internal.NFTHolderDelta]int64{}
	}
	k := internal.NFTHolderDelta{Contract: contract, Type: typ, Holder: holder}
	if _, ok := h.delta[k]; !ok {
		h.order = append(h.order, k)
	}
	h.delta[k] += d
}

// owners adds the ERC-721 owner changes of tokens: one token less for its
// owner stored before the batch, one more for the new one.
func (h *holderCounts) owners(ctx context.Context, w TokenWriter, tokens []internal.NFTTouch) error {
	var moved []internal.NFTID
	for i := range tokens {
		if tokens[i].Owner != nil {
			moved = append(moved, tokens[i].NFTID)
		}
	}
	if len(moved) == 0 {
		return nil
	}
	old, err := w.NFTOwners(ctx, moved)
	if err != nil {
		return err
	}
	for i := range tokens {
		t := &tokens[i]
		if t.Owner == nil {
			continue
		}
		prev, ok := old[t.NFTID]
		if ok && prev == *t.Owner {
			continue
		}
		if ok {
			h.add(t.Token, internal.ERC721, prev, -1)
		}
		h.add(t.Token, internal.ERC721, *t.Owner, 1)
	}
	return nil
}

// units returns the ERC-1155 balances after the batch's deltas, of the
// holdings they change, and adds the holders that start or stop holding
// a token id (a balance of zero is no holding).
func (h *holderCounts) units(ctx context.Context, w TokenWriter, held []internal.NFTHeld, deltas map[internal.NFTHeld]*big.Int) ([]internal.NFTUnits, error) {
	var changed []internal.NFTHeld
	for _, k := range held {
		if deltas[k].Sign() != 0 {
			changed = append(changed, k)
		}
	}
	if len(changed) == 0 {
		return nil, nil
	}
	stored, err := w.NFTBalances(ctx, changed)
	if err != nil {
		return nil, err
	}
	out := make([]internal.NFTUnits, 0, len(changed))
	for _, k := range changed {
		was := stored[k]
		if was == nil {
			was = new(big.Int)
		}
		bal := new(big.Int).Add(was, deltas[k])
		if bal.Sign() < 0 {
			bal.SetUint64(0) // a balance moved some way no transfer shows
		}
		switch before, after := was.Sign() != 0, bal.Sign() != 0; {
		case !before && after:
			h.add(k.Token, internal.ERC1155, k.Holder, 1)
		case before && !after:
			h.add(k.Token, internal.ERC1155, k.Holder, -1)
		}
		out = append(out, internal.NFTUnits{NFTHeld: k, Balance: bal})
	}
	return out, nil
}

// list is the changes that are not zero.
func (h *holderCounts) list() []internal.NFTHolderDelta {
	out := make([]internal.NFTHolderDelta, 0, len(h.order))
	for _, k := range h.order {
		if d := h.delta[k]; d != 0 {
			k.Delta = d
			out = append(out, k)
		}
	}
	return out
}
