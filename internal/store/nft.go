package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// NFTKey is a token's position in the lists of NFTs (contract, then token
// id, ascending).
type NFTKey struct {
	Token   common.Address
	TokenID *big.Int
}

// NFTHolding is an ERC-1155 token and how much of it a holder holds.
type NFTHolding struct {
	internal.NFTToken
	Balance *big.Int
}

// NFTReader is what the Data API reads of the NFTs.
type NFTReader interface {
	// NFTToken returns one token; NotFound when no transfer minted it.
	NFTToken(ctx context.Context, chainID uint64, token common.Address, id *big.Int) (*internal.NFTToken, error)
	// NFTTokens lists the tokens of a contract by id, after the id after
	// (nil: from the first).
	NFTTokens(ctx context.Context, chainID uint64, token common.Address, after *big.Int, limit int) ([]internal.NFTToken, error)
	// NFTsOwned lists the ERC-721 tokens owner owns (of contract only,
	// when not nil), by contract then id.
	NFTsOwned(ctx context.Context, chainID uint64, owner common.Address, contract *common.Address, after *NFTKey, limit int) ([]internal.NFTToken, error)
	// NFTHoldings lists the ERC-1155 tokens holder holds a non-zero
	// balance of (of contract only, when not nil), by contract then id.
	NFTHoldings(ctx context.Context, chainID uint64, holder common.Address, contract *common.Address, after *NFTKey, limit int) ([]NFTHolding, error)
	// NFTHoldingsAt returns the ERC-1155 tokens holder held a non-zero
	// balance of after block number (of contract only, when not nil), by
	// contract then id, summed from the holder's transfers (at most
	// 200,000 of them, else InvalidArgument).
	NFTHoldingsAt(ctx context.Context, chainID uint64, holder common.Address, contract *common.Address, number uint64) ([]NFTHolding, error)
	// ReindexNFT queues a token's metadata to be fetched again, unless it
	// was asked less than every ago: then retry is how long until it may
	// be. The last request's time is in the store, so the limit holds
	// across restarts and instances. NotFound when there is no such
	// token.
	ReindexNFT(ctx context.Context, chainID uint64, token common.Address, id *big.Int, now time.Time, every time.Duration) (retry time.Duration, err error)
}

// NFTWork is a token whose metadata the worker fetches.
type NFTWork struct {
	ChainID uint64
	Token   common.Address
	TokenID *big.Int
	Type    internal.ERCType
	// URI is nil when the contract did not answer tokenURI/uri.
	URI *string
	// Gen and Attempts are the row's when claimed.
	Gen      int64
	Attempts int
	// Reread asks the worker to read the URI from the contract again
	// first (a reindex: the contract may have changed it without an
	// event).
	Reread bool
}

// NFTResult is the outcome of fetching one token's metadata.
type NFTResult struct {
	Work     NFTWork
	Metadata internal.NFTMetadata
	// RetryAt, when not zero, keeps the token queued until then (a
	// transient failure); Metadata's status is recorded meanwhile.
	RetryAt time.Time
	// URIRead is set when the worker read the token's URI from its
	// contract again (Work.Reread): URI is then the contract's answer.
	URIRead bool
	URI     *string
}

// NFTStore is the NFTs' reads and the metadata worker's queue.
type NFTStore interface {
	NFTReader
	// NFTTokenIDs returns the ids of the stored tokens of a contract
	// within [from, to], ascending, at most limit.
	NFTTokenIDs(ctx context.Context, chainID uint64, token common.Address, from, to *big.Int, limit int) ([]*big.Int, error)
	// ClaimNFTWork takes up to limit queued tokens whose time has come
	// and hides them from other claims for lease.
	ClaimNFTWork(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]NFTWork, error)
	// SaveNFTMetadata records outcomes; one whose token changed since it
	// was claimed (a new URI, a reindex) is dropped, the token staying
	// queued.
	SaveNFTMetadata(ctx context.Context, results []NFTResult) error
	// NFTQueueLength is how many tokens are queued.
	NFTQueueLength(ctx context.Context) (int64, error)
}

var nftTokenColumns = []string{"chain_id", "address", "token_id", "erc_type", "owner", "mint_block", "token_uri",
	"pending", "gen", "attempts", "next_attempt", "status", "reread"}

// nftTouched updates a token seen in a batch: an ERC-721 owner when the
// batch moved it; the URI, when the batch read it (pending 1), queueing
// the metadata to be fetched.
const nftTouched = `ON CONFLICT (chain_id, address, token_id) DO UPDATE SET
	owner = COALESCE(excluded.owner, nft_tokens.owner),
	token_uri = CASE WHEN excluded.pending = 1 THEN excluded.token_uri ELSE nft_tokens.token_uri END,
	pending = CASE WHEN excluded.pending = 1 THEN 1 ELSE nft_tokens.pending END,
	gen = nft_tokens.gen + excluded.pending,
	attempts = CASE WHEN excluded.pending = 1 THEN 0 ELSE nft_tokens.attempts END,
	next_attempt = CASE WHEN excluded.pending = 1 THEN 0 ELSE nft_tokens.next_attempt END,
	reread = CASE WHEN excluded.pending = 1 THEN 0 ELSE nft_tokens.reread END`

func tokenIDBytes(id *big.Int) []byte { return common.BigToHash(id).Bytes() }

// NFTOwners returns the stored owners of those of tokens that have one.
func (t *EVMTx) NFTOwners(ctx context.Context, tokens []internal.NFTID) (map[internal.NFTID]common.Address, error) {
	byContract := map[common.Address][]any{}
	var contracts []common.Address
	for _, k := range tokens {
		if byContract[k.Token] == nil {
			contracts = append(contracts, k.Token)
		}
		byContract[k.Token] = append(byContract[k.Token], k.ID[:])
	}
	owners := map[internal.NFTID]common.Address{}
	for _, c := range contracts {
		ids := byContract[c]
		for start := 0; start < len(ids); start += readInList {
			chunk := ids[start:min(len(ids), start+readInList)]
			q := "SELECT token_id, owner FROM nft_tokens WHERE chain_id = ? AND address = ? AND owner IS NOT NULL AND token_id IN (?" +
				strings.Repeat(", ?", len(chunk)-1) + ")"
			err := t.db.RunQuery(ctx, q, func(rs *sql.Rows) error {
				var id, owner []byte
				if err := rs.Scan(&id, &owner); err != nil {
					return err
				}
				owners[internal.NFTID{Token: c, ID: common.BytesToHash(id)}] = common.BytesToAddress(owner)
				return nil
			}, append([]any{t.cid, c[:]}, chunk...)...)
			if err != nil {
				return nil, err
			}
		}
	}
	return owners, nil
}

// NFTBalances returns the stored ERC-1155 balances of those of held that
// have one.
func (t *EVMTx) NFTBalances(ctx context.Context, held []internal.NFTHeld) (map[internal.NFTHeld]*big.Int, error) {
	out := make(map[internal.NFTHeld]*big.Int, len(held))
	for _, h := range held {
		var b []byte
		err := t.db.QueryRow(ctx, "SELECT balance FROM nft_balances WHERE chain_id = ? AND holder = ? AND address = ? AND token_id = ?",
			t.cid, h.Holder[:], h.Token[:], h.ID[:]).Scan(&b)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, err
		default:
			out[h] = bigFrom(b)
		}
	}
	return out, nil
}

// WriteNFTs writes a batch's NFT tokens, the ERC-1155 balances it moved
// (a zero balance is stored as no bytes), the changes of the holders'
// counts, and queues again the tokens of its metadata updates.
func (t *EVMTx) WriteNFTs(ctx context.Context, tokens []internal.NFTTouch, balances []internal.NFTUnits, holders []internal.NFTHolderDelta, refreshes []internal.NFTRefresh) error {
	tx, cid := t.db, t.cid
	if len(tokens) > 0 {
		ins := make([][]any, 0, len(tokens))
		for _, r := range tokens {
			var owner, uri any
			if r.Owner != nil {
				owner = r.Owner[:]
			}
			if r.URI != nil {
				uri = *r.URI
			}
			ins = append(ins, []any{cid, r.Token[:], r.ID[:], ercCode(r.Type), owner, blockBound(r.First), uri,
				boolInt(r.URIRead), 0, 0, 0, string(internal.NFTUnindexed), 0})
		}
		if err := tx.Append(ctx, "nft_tokens", nftTokenColumns, ins, nftTouched); err != nil {
			return err
		}
	}
	for _, b := range balances {
		if _, err := tx.Exec(ctx, `INSERT INTO nft_balances (chain_id, holder, address, token_id, balance) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (chain_id, holder, address, token_id) DO UPDATE SET balance = excluded.balance`,
			cid, b.Holder[:], b.Token[:], b.ID[:], bigBytes(b.Balance)); err != nil {
			return err
		}
	}
	if err := addNFTHolders(ctx, tx, cid, holders); err != nil {
		return err
	}
	for _, r := range refreshes {
		if _, err := tx.Exec(ctx, `UPDATE nft_tokens SET pending = 1, gen = gen + 1, attempts = 0, next_attempt = 0
			WHERE chain_id = ? AND address = ? AND token_id >= ? AND token_id <= ?`,
			cid, r.Token[:], tokenIDBytes(r.From), tokenIDBytes(r.To)); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqlStore) NFTTokenIDs(ctx context.Context, chainID uint64, token common.Address, from, to *big.Int, limit int) (_ []*big.Int, err error) {
	defer derrors.Wrap(&err, "store.NFTTokenIDs(%d, %s)", chainID, token)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	var out []*big.Int
	err = s.db.RunQuery(ctx, `SELECT token_id FROM nft_tokens WHERE chain_id = ? AND address = ? AND token_id >= ? AND token_id <= ?
		ORDER BY token_id LIMIT ?`, func(rows *sql.Rows) error {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return err
		}
		out = append(out, bigFrom(b))
		return nil
	}, cid, token[:], tokenIDBytes(from), tokenIDBytes(to), limit)
	return out, err
}

const nftSelect = `SELECT t.address, t.token_id, t.erc_type, t.owner, t.token_uri, t.status, t.meta_updated, t.name, t.symbol,
	t.description, t.image, t.animation, t.external_url, t.background, t.attributes, t.properties, t.decimals`

func scanNFT(row scanner, extra ...any) (internal.NFTToken, error) {
	var (
		t                                                      internal.NFTToken
		addr, id, owner                                        []byte
		code                                                   int
		uri, name, symbol, desc, image, anim, ext, bg, at, pro sql.NullString
		status                                                 string
		updated, decimals                                      sql.NullInt64
	)
	err := row.Scan(append([]any{&addr, &id, &code, &owner, &uri, &status, &updated, &name, &symbol, &desc, &image, &anim, &ext,
		&bg, &at, &pro, &decimals}, extra...)...)
	if err != nil {
		return t, err
	}
	t.Token, t.TokenID, t.Type, t.Owner = common.BytesToAddress(addr), bigFrom(id), ercType(code), optAddrFrom(owner)
	t.URI, t.URIKnown = uri.String, uri.Valid
	m := &t.Metadata
	m.Status = internal.NFTStatus(status)
	if updated.Valid {
		m.UpdatedAt = time.UnixMilli(updated.Int64).UTC()
	}
	m.Name, m.Symbol, m.Description, m.Image, m.Animation = name.String, symbol.String, desc.String, image.String, anim.String
	m.ExternalURL, m.Background, m.Attributes, m.Properties = ext.String, bg.String, at.String, pro.String
	if decimals.Valid {
		d := int(decimals.Int64)
		m.Decimals = &d
	}
	return t, nil
}

func (s *sqlStore) NFTToken(ctx context.Context, chainID uint64, token common.Address, id *big.Int) (_ *internal.NFTToken, err error) {
	defer derrors.Wrap(&err, "store.NFTToken(%d, %s, %s)", chainID, token, id)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	if id.Sign() < 0 || id.BitLen() > 256 {
		return nil, derrors.NotFound
	}
	t, err := scanNFT(s.db.QueryRow(ctx, nftSelect+` FROM nft_tokens t WHERE t.chain_id = ? AND t.address = ? AND t.token_id = ?`,
		cid, token[:], tokenIDBytes(id)))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.NotFound
	}
	if err != nil {
		return nil, err
	}
	return &t, nil
}

func (s *sqlStore) NFTTokens(ctx context.Context, chainID uint64, token common.Address, after *big.Int, limit int) (_ []internal.NFTToken, err error) {
	defer derrors.Wrap(&err, "store.NFTTokens(%d, %s)", chainID, token)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	q := nftSelect + ` FROM nft_tokens t WHERE t.chain_id = ? AND t.address = ?`
	args := []any{cid, token[:]}
	if after != nil {
		q += ` AND t.token_id > ?`
		args = append(args, tokenIDBytes(after))
	}
	var out []internal.NFTToken
	err = s.db.RunQuery(ctx, q+` ORDER BY t.token_id LIMIT ?`, func(rows *sql.Rows) error {
		t, err := scanNFT(rows)
		out = append(out, t)
		return err
	}, append(args, limit)...)
	return out, err
}

// nftAfter is the condition on alias's (address, token_id) of a list by
// contract then id, strictly after after, and its arguments.
func nftAfter(alias string, contract *common.Address, after *NFTKey) (string, []any) {
	var q string
	var args []any
	if contract != nil {
		q += fmt.Sprintf(" AND %s.address = ?", alias)
		args = append(args, contract[:])
	}
	if after != nil {
		q += fmt.Sprintf(" AND %[1]s.address >= ? AND (%[1]s.address > ? OR %[1]s.token_id > ?)", alias)
		args = append(args, after.Token[:], after.Token[:], tokenIDBytes(after.TokenID))
	}
	return q, args
}

func (s *sqlStore) NFTsOwned(ctx context.Context, chainID uint64, owner common.Address, contract *common.Address, after *NFTKey, limit int) (_ []internal.NFTToken, err error) {
	defer derrors.Wrap(&err, "store.NFTsOwned(%d, %s)", chainID, owner)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	cond, args := nftAfter("t", contract, after)
	var out []internal.NFTToken
	err = s.db.RunQuery(ctx, nftSelect+` FROM nft_tokens t WHERE t.chain_id = ? AND t.owner = ? AND t.erc_type = 721`+cond+`
		ORDER BY t.address, t.token_id LIMIT ?`, func(rows *sql.Rows) error {
		t, err := scanNFT(rows)
		out = append(out, t)
		return err
	}, append(append([]any{cid, owner[:]}, args...), limit)...)
	return out, err
}

func (s *sqlStore) NFTHoldings(ctx context.Context, chainID uint64, holder common.Address, contract *common.Address, after *NFTKey, limit int) (_ []NFTHolding, err error) {
	defer derrors.Wrap(&err, "store.NFTHoldings(%d, %s)", chainID, holder)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	cond, args := nftAfter("h", contract, after)
	var out []NFTHolding
	err = s.db.RunQuery(ctx, nftSelect+`, h.balance FROM nft_balances h
		JOIN nft_tokens t ON t.chain_id = h.chain_id AND t.address = h.address AND t.token_id = h.token_id
		WHERE h.chain_id = ? AND h.holder = ? AND length(h.balance) > 0`+cond+`
		ORDER BY h.address, h.token_id LIMIT ?`, func(rows *sql.Rows) error {
		var bal []byte
		t, err := scanNFT(rows, &bal)
		out = append(out, NFTHolding{NFTToken: t, Balance: bigFrom(bal)})
		return err
	}, append(append([]any{cid, holder[:]}, args...), limit)...)
	return out, err
}

func (s *sqlStore) ReindexNFT(ctx context.Context, chainID uint64, token common.Address, id *big.Int, now time.Time, every time.Duration) (_ time.Duration, err error) {
	defer derrors.Wrap(&err, "store.ReindexNFT(%d, %s, %s)", chainID, token, id)
	cid, err := evmChainID(chainID)
	if err != nil {
		return 0, err
	}
	if id.Sign() < 0 || id.BitLen() > 256 {
		return 0, derrors.NotFound
	}
	sec := now.Unix()
	// One conditional UPDATE: of two requests at once, on one instance or
	// several, one wins.
	n, err := s.db.Exec(ctx, `UPDATE nft_tokens SET reindexed_at = ?, pending = 1, reread = 1, gen = gen + 1, attempts = 0, next_attempt = 0
		WHERE chain_id = ? AND address = ? AND token_id = ? AND (reindexed_at IS NULL OR reindexed_at <= ?)`,
		sec, cid, token[:], tokenIDBytes(id), sec-int64(every/time.Second))
	if err != nil || n == 1 {
		return 0, err
	}
	var last sql.NullInt64
	err = s.db.QueryRow(ctx, `SELECT reindexed_at FROM nft_tokens WHERE chain_id = ? AND address = ? AND token_id = ?`,
		cid, token[:], tokenIDBytes(id)).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, derrors.NotFound
	}
	if err != nil {
		return 0, err
	}
	return max(time.Second, time.Unix(last.Int64, 0).Add(every).Sub(now).Round(time.Second)), nil
}

func (s *sqlStore) ClaimNFTWork(ctx context.Context, now time.Time, lease time.Duration, limit int) (_ []NFTWork, err error) {
	defer derrors.Wrap(&err, "store.ClaimNFTWork")
	ms := now.UnixMilli()
	var out []NFTWork
	err = s.db.RunQuery(ctx, `UPDATE nft_tokens SET next_attempt = ?
		WHERE pending = 1 AND next_attempt <= ? AND (chain_id, address, token_id) IN (
			SELECT chain_id, address, token_id FROM nft_tokens WHERE pending = 1 AND next_attempt <= ? ORDER BY next_attempt LIMIT ?)
		RETURNING chain_id, address, token_id, erc_type, token_uri, gen, attempts, reread`, func(rows *sql.Rows) error {
		var (
			w        NFTWork
			cid      int64
			addr, id []byte
			code     int
			uri      sql.NullString
			reread   int
		)
		if err := rows.Scan(&cid, &addr, &id, &code, &uri, &w.Gen, &w.Attempts, &reread); err != nil {
			return err
		}
		w.Reread = reread == 1
		w.ChainID, w.Token, w.TokenID, w.Type = uint64(cid), common.BytesToAddress(addr), bigFrom(id), ercType(code)
		if uri.Valid {
			w.URI = &uri.String
		}
		out = append(out, w)
		return nil
	}, ms+lease.Milliseconds(), ms, ms, limit)
	return out, err
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (s *sqlStore) SaveNFTMetadata(ctx context.Context, results []NFTResult) (err error) {
	defer derrors.Wrap(&err, "store.SaveNFTMetadata(%d)", len(results))
	if len(results) == 0 {
		return nil
	}
	return s.db.Transact(ctx, func(tx *database.DB) error {
		for _, r := range results {
			w, m := &r.Work, &r.Metadata
			cid, err := evmChainID(w.ChainID)
			if err != nil {
				return err
			}
			key := []any{cid, w.Token[:], tokenIDBytes(w.TokenID), w.Gen}
			if r.URIRead {
				var uri any
				if r.URI != nil {
					uri = *r.URI
				}
				if _, err := tx.Exec(ctx, `UPDATE nft_tokens SET token_uri = ?, reread = 0
					WHERE chain_id = ? AND address = ? AND token_id = ? AND gen = ? AND pending = 1`, append([]any{uri}, key...)...); err != nil {
					return err
				}
			}
			if !r.RetryAt.IsZero() {
				_, err = tx.Exec(ctx, `UPDATE nft_tokens SET status = ?, meta_updated = ?, attempts = attempts + 1, next_attempt = ?
					WHERE chain_id = ? AND address = ? AND token_id = ? AND gen = ? AND pending = 1`,
					append([]any{string(m.Status), m.UpdatedAt.UnixMilli(), r.RetryAt.UnixMilli()}, key...)...)
			} else {
				var decimals any
				if m.Decimals != nil {
					decimals = *m.Decimals
				}
				_, err = tx.Exec(ctx, `UPDATE nft_tokens SET pending = 0, status = ?, meta_updated = ?, name = ?, symbol = ?,
					description = ?, image = ?, animation = ?, external_url = ?, background = ?, attributes = ?, properties = ?, decimals = ?
					WHERE chain_id = ? AND address = ? AND token_id = ? AND gen = ? AND pending = 1`,
					append([]any{string(m.Status), m.UpdatedAt.UnixMilli(), nullString(m.Name), nullString(m.Symbol),
						nullString(m.Description), nullString(m.Image), nullString(m.Animation), nullString(m.ExternalURL),
						nullString(m.Background), nullString(m.Attributes), nullString(m.Properties), decimals}, key...)...)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *sqlStore) NFTQueueLength(ctx context.Context) (_ int64, err error) {
	defer derrors.Wrap(&err, "store.NFTQueueLength")
	var n int64
	err = s.db.QueryRow(ctx, "SELECT COUNT(*) FROM nft_tokens WHERE pending = 1").Scan(&n)
	return n, err
}

// maxHistoryTransfers bounds the transfers NFTHoldingsAt sums.
const maxHistoryTransfers = 200_000

func (s *sqlStore) NFTHoldingsAt(ctx context.Context, chainID uint64, holder common.Address, contract *common.Address, number uint64) (_ []NFTHolding, err error) {
	defer derrors.Wrap(&err, "store.NFTHoldingsAt(%d, %s, %d)", chainID, holder, number)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	q := `SELECT t.token, t.token_id, t.from_address, t.to_address, t.value FROM evm_address_transfers a
		JOIN evm_transfers t ON t.chain_id = a.chain_id AND t.block_number = a.block_number AND t.log_index = a.log_index
			AND t.batch_index = a.batch_index
		WHERE a.chain_id = ? AND a.address = ? AND a.erc_type = 1155 AND a.block_number <= ?`
	args := []any{cid, holder[:], blockBound(number)}
	if contract != nil {
		q += ` AND t.token = ?`
		args = append(args, contract[:])
	}
	sums := map[internal.NFTID]*big.Int{}
	n := 0
	err = s.db.RunQuery(ctx, q+` LIMIT ?`, func(rows *sql.Rows) error {
		var token, id, from, to, value []byte
		if err := rows.Scan(&token, &id, &from, &to, &value); err != nil {
			return err
		}
		n++
		k := internal.NFTID{Token: common.BytesToAddress(token), ID: common.BytesToHash(id)}
		sum, ok := sums[k]
		if !ok {
			sum = new(big.Int)
			sums[k] = sum
		}
		v := bigFrom(value)
		if common.BytesToAddress(to) == holder {
			sum.Add(sum, v)
		}
		if common.BytesToAddress(from) == holder {
			sum.Sub(sum, v)
		}
		return nil
	}, append(args, maxHistoryTransfers+1)...)
	if err != nil {
		return nil, err
	}
	if n > maxHistoryTransfers {
		return nil, derrors.Invalid("the address has more than %d ERC-1155 transfers: its balances at a past block are not computed; omit blockNumber", maxHistoryTransfers)
	}
	var keys []internal.NFTID
	for k, v := range sums {
		if v.Sign() > 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(x, y internal.NFTID) int {
		if c := bytes.Compare(x.Token[:], y.Token[:]); c != 0 {
			return c
		}
		return bytes.Compare(x.ID[:], y.ID[:])
	})
	out := make([]NFTHolding, 0, len(keys))
	for _, k := range keys {
		t, err := scanNFT(s.db.QueryRow(ctx, nftSelect+` FROM nft_tokens t WHERE t.chain_id = ? AND t.address = ? AND t.token_id = ?`,
			cid, k.Token[:], k.ID[:]))
		if errors.Is(err, sql.ErrNoRows) {
			t = internal.NFTToken{Token: k.Token, TokenID: k.ID.Big(), Type: internal.ERC1155, Metadata: internal.NFTMetadata{Status: internal.NFTUnindexed}}
		} else if err != nil {
			return nil, err
		}
		out = append(out, NFTHolding{NFTToken: t, Balance: sums[k]})
	}
	return out, nil
}
