package store

import (
	"bytes"
	"context"
	"slices"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
)

// The current holders of each NFT contract (nft_holders, with their
// totals in nft_holder_totals; migration 0044): what the Looking Glass
// pages of a collection's holders read, a range of their key, instead of
// grouping the contract's tokens on every request.

// addNFTHolders writes a batch's changes of the holders' counts to
// nft_holders and nft_holder_totals.
func addNFTHolders(ctx context.Context, tx *database.DB, cid int64, deltas []internal.NFTHolderDelta) error {
	keys := slices.Clone(deltas)
	// In key order, the index pages the upserts touch follow each other.
	slices.SortFunc(keys, func(x, y internal.NFTHolderDelta) int {
		if c := bytes.Compare(x.Contract[:], y.Contract[:]); c != 0 {
			return c
		}
		if c := ercTypeCode(x.Type) - ercTypeCode(y.Type); c != 0 {
			return c
		}
		return bytes.Compare(x.Holder[:], y.Holder[:])
	})
	type totalKey struct {
		contract common.Address
		erc      int
	}
	totals := map[totalKey]*[2]int64{}
	var totalOrder []totalKey
	for _, k := range keys {
		d, erc := k.Delta, ercTypeCode(k.Type)
		if d == 0 {
			continue
		}
		var now int64
		err := tx.QueryRow(ctx, `INSERT INTO nft_holders (chain_id, address, erc_type, holder, tokens) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (chain_id, address, erc_type, holder) DO UPDATE SET tokens = nft_holders.tokens + excluded.tokens
			RETURNING tokens`, cid, k.Contract[:], erc, k.Holder[:], d).Scan(&now)
		if err != nil {
			return err
		}
		if now <= 0 {
			if _, err := tx.Exec(ctx, "DELETE FROM nft_holders WHERE chain_id = ? AND address = ? AND erc_type = ? AND holder = ?",
				cid, k.Contract[:], erc, k.Holder[:]); err != nil {
				return err
			}
		}
		tk := totalKey{k.Contract, erc}
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
// nft_balances (what the NFT derivation would have written), in one step.
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
