package store

import (
	"bytes"
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
)

// The current holders of each NFT contract (nft_holders, with their
// totals in nft_holder_totals; migration 0044): what the Looking Glass
// pages of a collection's holders read, a range of their key, instead of
// grouping the contract's tokens on every request.

// holderKey is a holder of a contract in one of its counts (erc 721: the
// tokens it owns; 1155: the token ids it holds some of).
type holderKey struct {
	contract common.Address
	erc      int
	holder   common.Address
}

// holderDeltas are the changes of a batch to the holders' counts.
type holderDeltas map[holderKey]int64

func (h holderDeltas) add(contract common.Address, erc int, holder common.Address, d int64) {
	if holder == (common.Address{}) {
		return
	}
	h[holderKey{contract, erc, holder}] += d
}

// owners adds the ERC-721 owner changes of rows (the batch's tokens, each
// with its last owner when the batch moved it): one token less for its
// owner stored before the batch, one more for the new one.
func (h holderDeltas) owners(ctx context.Context, tx *database.DB, cid int64, rows map[nftRowKey]*nftRow, order []nftRowKey) error {
	byContract := map[common.Address][]any{}
	var contracts []common.Address
	for _, k := range order {
		if rows[k].owner == nil {
			continue
		}
		if byContract[k.token] == nil {
			contracts = append(contracts, k.token)
		}
		byContract[k.token] = append(byContract[k.token], k.id[:])
	}
	old := map[nftRowKey]common.Address{}
	for _, c := range contracts {
		ids := byContract[c]
		for start := 0; start < len(ids); start += readInList {
			chunk := ids[start:min(len(ids), start+readInList)]
			q := "SELECT token_id, owner FROM nft_tokens WHERE chain_id = ? AND address = ? AND owner IS NOT NULL AND token_id IN (?" +
				strings.Repeat(", ?", len(chunk)-1) + ")"
			err := tx.RunQuery(ctx, q, func(rs *sql.Rows) error {
				var id, owner []byte
				if err := rs.Scan(&id, &owner); err != nil {
					return err
				}
				old[nftRowKey{c, common.BytesToHash(id)}] = common.BytesToAddress(owner)
				return nil
			}, append([]any{cid, c[:]}, chunk...)...)
			if err != nil {
				return err
			}
		}
	}
	for _, k := range order {
		r := rows[k]
		if r.owner == nil {
			continue
		}
		prev, ok := old[k]
		if ok && prev == *r.owner {
			continue
		}
		if ok {
			h.add(k.token, 721, prev, -1)
		}
		h.add(k.token, 721, *r.owner, 1)
	}
	return nil
}

// apply writes the deltas to nft_holders and nft_holder_totals.
func (h holderDeltas) apply(ctx context.Context, tx *database.DB, cid int64) error {
	keys := make([]holderKey, 0, len(h))
	for k, d := range h {
		if d != 0 {
			keys = append(keys, k)
		}
	}
	// In key order, the index pages the upserts touch follow each other.
	slices.SortFunc(keys, func(x, y holderKey) int {
		if c := bytes.Compare(x.contract[:], y.contract[:]); c != 0 {
			return c
		}
		if x.erc != y.erc {
			return x.erc - y.erc
		}
		return bytes.Compare(x.holder[:], y.holder[:])
	})
	type totalKey struct {
		contract common.Address
		erc      int
	}
	totals := map[totalKey]*[2]int64{}
	var totalOrder []totalKey
	for _, k := range keys {
		d := h[k]
		var now int64
		err := tx.QueryRow(ctx, `INSERT INTO nft_holders (chain_id, address, erc_type, holder, tokens) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (chain_id, address, erc_type, holder) DO UPDATE SET tokens = nft_holders.tokens + excluded.tokens
			RETURNING tokens`, cid, k.contract[:], k.erc, k.holder[:], d).Scan(&now)
		if err != nil {
			return err
		}
		if now <= 0 {
			if _, err := tx.Exec(ctx, "DELETE FROM nft_holders WHERE chain_id = ? AND address = ? AND erc_type = ? AND holder = ?",
				cid, k.contract[:], k.erc, k.holder[:]); err != nil {
				return err
			}
		}
		tk := totalKey{k.contract, k.erc}
		t := totals[tk]
		if t == nil {
			t = new([2]int64)
			totals[tk] = t
			totalOrder = append(totalOrder, tk)
		}
		was := now - d
		switch {
		case was <= 0 && now > 0:
			t[0]++
		case was > 0 && now <= 0:
			t[0]--
		}
		t[1] += max(now, 0) - max(was, 0)
	}
	for _, tk := range totalOrder {
		t := totals[tk]
		if _, err := tx.Exec(ctx, `INSERT INTO nft_holder_totals (chain_id, address, erc_type, holders, tokens) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (chain_id, address, erc_type) DO UPDATE SET holders = nft_holder_totals.holders + excluded.holders,
				tokens = nft_holder_totals.tokens + excluded.tokens`, cid, tk.contract[:], tk.erc, t[0], t[1]); err != nil {
			return err
		}
	}
	return nil
}

// nftHolderParts is the nft_holders backfill: the holders' counts and
// totals of what was stored before migration 0044, from nft_tokens and
// nft_balances (what the NFT applier would have written), in one step.
func nftHolderParts(context.Context, *database.DB) ([]BackfillPart, error) {
	return []BackfillPart{stepPart("the NFT holders", fillNFTHolders)}, nil
}

func fillNFTHolders(ctx context.Context, tx *database.DB) error {
	zero := common.Address{}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"DELETE FROM nft_holders", nil},
		{"DELETE FROM nft_holder_totals", nil},
		{`INSERT INTO nft_holders (chain_id, address, erc_type, holder, tokens)
			SELECT chain_id, address, 721, owner, COUNT(*) FROM nft_tokens WHERE owner IS NOT NULL AND owner <> ?
			GROUP BY chain_id, address, owner`, []any{zero[:]}},
		{`INSERT INTO nft_holders (chain_id, address, erc_type, holder, tokens)
			SELECT chain_id, address, 1155, holder, COUNT(*) FROM nft_balances WHERE balance <> ? AND holder <> ?
			GROUP BY chain_id, address, holder`, []any{[]byte{}, zero[:]}},
		{`INSERT INTO nft_holder_totals (chain_id, address, erc_type, holders, tokens)
			SELECT chain_id, address, erc_type, COUNT(*), SUM(tokens) FROM nft_holders GROUP BY chain_id, address, erc_type`, nil},
	} {
		if _, err := tx.Exec(ctx, q.sql, q.args...); err != nil {
			return err
		}
	}
	return nil
}

// ercTypeCode is the nft_holders count of a collection of type t.
func ercTypeCode(t internal.ERCType) int {
	if t == internal.ERC1155 {
		return 1155
	}
	return 721
}
