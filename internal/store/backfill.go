package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// Backfills write derived rows, for what was stored before a migration
// created their table, that SQL alone cannot write. The migration inserts
// the backfill's settings row ("backfill:NAME", an empty value); the derivation
// layer (derive.RunBackfills) runs it, under the indexer lease and before
// the indexer, a bounded chunk per transaction: each chunk commits with the
// row's new cursor, "PART:NEXT" (the part of the work, BackfillParts, and
// the next position there), so a backfill cut short resumes where it
// stopped. FinishBackfill deletes the row. The store keeps the SQL of each
// chunk; what runs them, in what order, with what progress, is derive's.
//
// Backfills are the names, in the order they must run: the history's P
// part reads p_staker_addresses.
var Backfills = []string{"address_utxos", "address_utxo_balances", "p_staker_addresses", "address_txs", "block_proposers", "evm_erc20_balances", "burned",
	"l1_fee_history", "nft_holders", "utxo_page_keys", "evm_latest_balances", "nft_spans", "address_balances"}

// BackfillKey is the settings key of the backfill name.
func BackfillKey(name string) string { return backfillPrefix + name }

const backfillPrefix = "backfill:"

// Backfill is a backfill asked for, and where it stands.
type Backfill struct {
	Name string
	// Part is the index in BackfillParts of the part it is at, Next the
	// next position of that part to fill (below the part's Lo: its start).
	Part int
	Next int64
}

// BackfillPart is a part of a backfill's work: the positions [Lo, Hi)
// (heights, DAG or container indices) of one table, chain or index, filled
// by FillBackfill a range at a time. A part of one position is a single
// step (a rederive asked for).
type BackfillPart struct {
	// Name tells the part, for logs and errors.
	Name   string
	Lo, Hi int64
	// fill writes the rows of the positions [lo, hi) in tx, and returns
	// the position it stopped at (hi, or before when it bounds its work
	// otherwise).
	fill func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error)
}

// backfillParts are the parts of each backfill, read from the store.
var backfillParts = map[string]func(ctx context.Context, db *database.DB) ([]BackfillPart, error){
	"address_utxos":         addressUTXOParts,
	"address_utxo_balances": balanceColumnParts,
	"p_staker_addresses":    stakerAddressParts,
	"address_txs":           addressTxParts,
	"block_proposers":       proposerParts,
	"burned":                burnedParts,
	"l1_fee_history": func(context.Context, *database.DB) ([]BackfillPart, error) {
		return []BackfillPart{stepPart("the P-chain rederive", backfillL1FeeHistory)}, nil
	},
	"nft_holders":         nftHolderParts,
	"utxo_page_keys":      utxoPageKeyParts,
	"evm_latest_balances": latestBalanceParts,
	"address_balances":    addressBalanceParts,
}

// BackfillDerivations are the derivations the backfills of derived rows
// hand what the store holds (its stored transfers) to: the ones the
// indexer runs, which derive's Backfiller passes.
type BackfillDerivations struct {
	// ERC20 applies ERC-20 transfers to the balances (derive/erc20).
	ERC20 func(ctx context.Context, tx *EVMTx, moves []internal.ERC20Move) error
	// NFTSpans applies NFT transfers to the holding spans (derive/nfts).
	NFTSpans func(ctx context.Context, tx *EVMTx, moves []internal.NFTMove) error
}

// derivedBackfillParts are the parts of the backfills whose rows a
// derivation writes.
var derivedBackfillParts = map[string]func(ctx context.Context, db *database.DB, d BackfillDerivations) ([]BackfillPart, error){
	"evm_erc20_balances": erc20BalanceParts,
	"nft_spans":          nftSpanParts,
}

// BackfillStore is the store's side of the backfills: what is asked for,
// the parts of each, and the fill of a range of one part in a transaction
// that moves the backfill's cursor. The caller (derive.RunBackfills) holds
// the indexer lease: nothing else writes the tables meanwhile.
type BackfillStore interface {
	// PendingBackfills returns the backfills asked for, in the order of
	// Backfills.
	PendingBackfills(ctx context.Context) ([]Backfill, error)
	// BackfillParts returns the parts of the backfill name, as the stored
	// data stands; d are the derivations of the backfills of derived
	// rows, which a backfill that needs one refuses to go without.
	BackfillParts(ctx context.Context, name string, d BackfillDerivations) ([]BackfillPart, error)
	// FillBackfill fills the positions [b.Next, hi) of the part b.Part
	// (parts[b.Part]), at most, in one transaction with the backfill's
	// cursor, and returns the backfill as it then stands.
	FillBackfill(ctx context.Context, b Backfill, part BackfillPart, hi int64) (Backfill, error)
	// FinishBackfill marks the backfill name done.
	FinishBackfill(ctx context.Context, name string) error

	// MetricsLeft and CatchUpMetrics are the metrics' catch-up: the
	// heights of a chain's stored blocks its metrics lack, and their
	// rollup, a range at a time.
	MetricsLeft(ctx context.Context, chain internal.Chain) (from, to uint64, ok bool, err error)
	CatchUpMetrics(ctx context.Context, chain internal.Chain, from, to uint64, decode MetricDecoder, derive MetricDerivation) error
}

func (s *sqlStore) PendingBackfills(ctx context.Context) (_ []Backfill, err error) {
	defer derrors.Wrap(&err, "store.PendingBackfills")
	return pendingBackfills(ctx, s.db)
}

func pendingBackfills(ctx context.Context, db *database.DB) ([]Backfill, error) {
	byName := map[string]Backfill{}
	err := db.RunQuery(ctx, "SELECT key, value FROM settings WHERE key LIKE 'backfill:%'", func(rows *sql.Rows) error {
		var (
			key   string
			value []byte
		)
		if err := rows.Scan(&key, &value); err != nil {
			return err
		}
		b, err := parseBackfill(strings.TrimPrefix(key, backfillPrefix), value)
		if err != nil {
			return err
		}
		byName[b.Name] = b
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []Backfill
	for _, name := range Backfills {
		if b, ok := byName[name]; ok {
			out = append(out, b)
			delete(byName, name)
		}
	}
	// One this release does not know (a newer one's) is pending too:
	// BackfillParts refuses it.
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[name])
	}
	return out, nil
}

// parseBackfill reads a backfill's cursor: ” (a migration's: from the
// start) or "PART:NEXT".
func parseBackfill(name string, value []byte) (Backfill, error) {
	b := Backfill{Name: name}
	if len(value) == 0 {
		return b, nil
	}
	part, next, ok := bytes.Cut(value, []byte(":"))
	var err1, err2 error
	b.Part, err1 = strconv.Atoi(string(part))
	b.Next, err2 = strconv.ParseInt(string(next), 10, 64)
	if !ok || err1 != nil || err2 != nil || b.Part < 0 {
		return b, fmt.Errorf("backfill %s: bad cursor %q", name, value)
	}
	return b, nil
}

func (s *sqlStore) BackfillParts(ctx context.Context, name string, d BackfillDerivations) (_ []BackfillPart, err error) {
	defer derrors.Wrap(&err, "store.BackfillParts(%s)", name)
	if parts := derivedBackfillParts[name]; parts != nil {
		return parts(ctx, s.db, d)
	}
	parts := backfillParts[name]
	if parts == nil {
		return nil, derrors.Invalid("no backfill %q in this release (a newer avaindex's?)", name)
	}
	return parts(ctx, s.db)
}

func (s *sqlStore) FillBackfill(ctx context.Context, b Backfill, part BackfillPart, hi int64) (_ Backfill, err error) {
	defer derrors.Wrap(&err, "store.FillBackfill(%s, %s, %d..%d)", b.Name, part.Name, b.Next, hi)
	if part.fill == nil {
		return b, derrors.Invalid("part %q is none of BackfillParts'", part.Name)
	}
	lo := max(b.Next, part.Lo)
	hi = min(hi, part.Hi)
	if lo >= hi {
		return b, derrors.Invalid("empty range %d..%d", lo, hi)
	}
	err = s.db.Transact(ctx, func(tx *database.DB) error {
		next, err := part.fill(ctx, tx, lo, hi)
		if err != nil {
			return err
		}
		if next <= lo || next > hi {
			return fmt.Errorf("filled up to %d, not in %d..%d", next, lo+1, hi)
		}
		n, err := tx.Exec(ctx, "UPDATE settings SET value = ? WHERE key = ?",
			[]byte(fmt.Sprintf("%d:%d", b.Part, next)), BackfillKey(b.Name))
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("not asked for (any more)")
		}
		b.Next = next
		return nil
	})
	return b, err
}

func (s *sqlStore) FinishBackfill(ctx context.Context, name string) (err error) {
	defer derrors.Wrap(&err, "store.FinishBackfill(%s)", name)
	_, err = s.db.Exec(ctx, "DELETE FROM settings WHERE key = ?", BackfillKey(name))
	return err
}

// rangePart is the part name over the positions [MIN, MAX+1) that
// bounds (SELECT MIN(col), MAX(col) ...) reads, empty (0, 0) when the
// table has none: a part is there even when empty, so that the parts'
// indices, which the cursor keeps, do not depend on what is stored.
func rangePart(ctx context.Context, db *database.DB, name, bounds string, args []any,
	fill func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error)) (BackfillPart, error) {
	var lo, hi sql.NullInt64
	if err := db.QueryRow(ctx, bounds, args...).Scan(&lo, &hi); err != nil {
		return BackfillPart{}, fmt.Errorf("%s: %w", name, err)
	}
	p := BackfillPart{Name: name, fill: fill}
	if lo.Valid && hi.Valid {
		p.Lo, p.Hi = lo.Int64, hi.Int64+1
	}
	return p, nil
}

// inclusive adapts a fill of the positions lo..hi, both included, to a
// part's.
func inclusive(fill func(ctx context.Context, tx *database.DB, lo, hi int64) error) func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
	return func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
		return hi, fill(ctx, tx, lo, hi-1)
	}
}

// chainIDs returns the chain ids query lists (one column).
func chainIDs(ctx context.Context, db *database.DB, query string) ([]int64, error) {
	var out []int64
	err := db.RunQuery(ctx, query, func(rows *sql.Rows) error {
		var c int64
		if err := rows.Scan(&c); err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the chains: %w", err)
	}
	return out, nil
}

// wholeBlocks is a chunk of a backfill that replays stored rows of blocks
// [lo, hi) in chain order: read returns up to limit of them (0: all),
// apply applies them. A block's rows are applied together: a full read
// leaves its last block to the next chunk or, a block alone, reads all of
// it. It returns the block it stopped before.
func wholeBlocks[M any](lo, hi int64, perRead int, block func(M) int64,
	read func(lo, hi int64, limit int) ([]M, error), apply func([]M) error) (int64, error) {
	rows, err := read(lo, hi, perRead)
	if err != nil {
		return 0, err
	}
	next := hi // a short read holds every row before hi
	if len(rows) == perRead {
		next = block(rows[len(rows)-1])
		i := len(rows)
		for i > 0 && block(rows[i-1]) == next {
			i--
		}
		if i > 0 {
			rows = rows[:i]
		} else if rows, err = read(next, next+1, 0); err != nil {
			return 0, err
		} else {
			next++
		}
	}
	if len(rows) == 0 {
		return next, nil
	}
	return next, apply(rows)
}

// stepPart is a part of one position: fill, once.
// backfillDone reports whether the backfill name is done: its settings
// row gone (what it fills is then whole).
func backfillDone(ctx context.Context, db *database.DB, name string) (bool, error) {
	var v []byte
	err := db.QueryRow(ctx, "SELECT value FROM settings WHERE key = ?", BackfillKey(name)).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	return false, err
}

func stepPart(name string, fill func(ctx context.Context, tx *database.DB) error) BackfillPart {
	return BackfillPart{Name: name, Lo: 0, Hi: 1, fill: func(ctx context.Context, tx *database.DB, _, _ int64) (int64, error) {
		return 1, fill(ctx, tx)
	}}
}
