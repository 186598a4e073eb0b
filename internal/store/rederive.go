package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
)

// RederiveStore is the store's side of a rederive: the derived state of a
// chain written again from the blocks already stored, without the node
// (see ingest.Rederive, which decodes them). A rederive is asked for by a
// settings row "rederive:CHAIN" (RequestRederive, or a migration that
// inserts it with the value 'request'); StartRederive clears the chain's
// derived state and turns the row into the rederive's cursor, the next
// height to apply; each RederivePBlocks moves it in the blocks'
// transaction, and the row is deleted once the chain's cursor is reached.
// A crash resumes at the cursor. While a rederive of a chain is pending,
// its indexer's applies are refused.
type RederiveStore interface {
	// RequestRederive asks for a rederive of chain from the genesis,
	// unless one is pending already (then it changes nothing).
	RequestRederive(ctx context.Context, chain internal.Chain) error
	// PendingRederives returns the rederives asked for or under way.
	PendingRederives(ctx context.Context) ([]Rederive, error)
	// StartRederive clears the derived state of a requested rederive's
	// chain and sets its cursor to 0; a rederive under way is left as it
	// is. It returns the rederive's state.
	StartRederive(ctx context.Context, chain internal.Chain) (Rederive, error)
	// StoredPBlocks returns up to n stored P-chain blocks from height
	// from on, ascending, with the reward UTXOs stored for them.
	StoredPBlocks(ctx context.Context, from uint64, n int) ([]StoredPBlock, error)
	// RederivePBlocks runs the P-chain's appliers over blocks (stored
	// blocks decoded again, consecutive, starting at the rederive's
	// cursor) and moves the cursor past them, in one transaction; it
	// ends the rederive when the cursor passes the P-chain's cursor.
	RederivePBlocks(ctx context.Context, blocks []*pchain.Block) (Rederive, error)
}

// Rederive is the state of a chain's rederive.
type Rederive struct {
	Chain internal.Chain
	// Started is false while the rederive is only asked for.
	Started bool
	// Next is the next height to apply; Target the chain's cursor, the
	// last height to apply (Done when Next passes it).
	Next, Target uint64
	Done         bool
}

// StoredPBlock is a stored P-chain block's bytes and the reward UTXOs
// stored for its RewardValidatorTxs, by the staker they reward, in the
// node's encoding.
type StoredPBlock struct {
	Height  uint64
	Bytes   []byte
	Rewards map[ids.ID][][]byte
}

// RederiveKey is the settings key of chain's rederive.
func RederiveKey(chain internal.Chain) string { return "rederive:" + string(chain) }

// rederiveRequested is a rederive's settings value before it starts.
const rederiveRequested = "request"

// rederivable are the chains a rederive can run on.
var rederivable = []internal.Chain{internal.PChain}

// pDerivedTables are the tables written by the P-chain's appliers alone,
// emptied by a rederive's start; the rows shared with other chains
// (address_utxos, the metrics) are deleted by pDerivedClears.
var pDerivedTables = []string{
	"p_utxo_addresses", "p_utxos", "p_imported_utxos", "p_subnets", "p_blockchains", // p_utxo_addresses references p_utxos
	"p_stakers", "p_staker_owners", "p_l1_validator_events", "p_l1_validators", "p_l1_validator_owners",
	"p_l1_fees", "p_l1_fee_validators", "p_reward_state", "p_reward_subnets", "p_supply_history",
	"p_historical_rewards", "p_historical_reward_owners",
}

var pDerivedClears = []struct {
	query string
	args  []any
}{
	{"DELETE FROM address_utxos WHERE origin = ?", []any{string(internal.PChain)}},
	{"DELETE FROM metric_chains WHERE chain_key = ?", []any{PMetricKey}},
	{"DELETE FROM metric_rollups WHERE chain_key = ?", []any{PMetricKey}},
	{"DELETE FROM metric_addresses WHERE chain_key = ?", []any{PMetricKey}},
}

func rederiveState(ctx context.Context, db *database.DB, chain internal.Chain) (r Rederive, ok bool, err error) {
	r.Chain = chain
	var v []byte
	err = db.QueryRow(ctx, "SELECT value FROM settings WHERE key = ?", RederiveKey(chain)).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return r, false, nil
	case err != nil:
		return r, false, err
	}
	if cur, ok, err := cursor(ctx, db, ChainCursor(chain)); err != nil {
		return r, false, err
	} else if ok {
		r.Target = cur
	}
	if string(v) == rederiveRequested {
		return r, true, nil
	}
	next, err := strconv.ParseUint(string(v), 10, 63)
	if err != nil {
		return r, false, fmt.Errorf("the %s-chain's rederive cursor %q: %w", chain, v, err)
	}
	r.Started, r.Next = true, next
	return r, true, nil
}

// refuseWhileRederiving fails while a rederive of chain is pending: its
// indexer must not write derived state over a half-derived store.
func refuseWhileRederiving(ctx context.Context, tx *database.DB, chain internal.Chain) error {
	var n int64
	if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM settings WHERE key = ?", RederiveKey(chain)).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("a rederive of the %s-chain is pending: run `avaindex rederive --chain %s` (or start avaindex serve, which runs it) first: %w",
			chain, chain, derrors.Unavailable)
	}
	return nil
}

func (s *sqlStore) RequestRederive(ctx context.Context, chain internal.Chain) (err error) {
	defer derrors.Wrap(&err, "store.RequestRederive(%s)", chain)
	ok := false
	for _, c := range rederivable {
		ok = ok || c == chain
	}
	if !ok {
		return fmt.Errorf("the %s-chain cannot be rederived (only the P-chain can): %w", chain, derrors.InvalidArgument)
	}
	_, err = s.db.Exec(ctx, "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
		RederiveKey(chain), []byte(rederiveRequested))
	return err
}

func (s *sqlStore) PendingRederives(ctx context.Context) (_ []Rederive, err error) {
	defer derrors.Wrap(&err, "store.PendingRederives")
	var out []Rederive
	for _, c := range rederivable {
		r, ok, err := rederiveState(ctx, s.db, c)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}

func (s *sqlStore) StartRederive(ctx context.Context, chain internal.Chain) (r Rederive, err error) {
	defer derrors.Wrap(&err, "store.StartRederive(%s)", chain)
	if chain != internal.PChain {
		return r, fmt.Errorf("the %s-chain cannot be rederived: %w", chain, derrors.InvalidArgument)
	}
	err = s.db.Transact(ctx, func(tx *database.DB) error {
		var ok bool
		if r, ok, err = rederiveState(ctx, tx, chain); err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("no rederive of the %s-chain is asked for: %w", chain, derrors.NotFound)
		}
		if r.Started {
			return nil
		}
		for _, t := range pDerivedTables {
			if _, err := tx.Exec(ctx, "DELETE FROM "+t); err != nil {
				return err
			}
		}
		for _, c := range pDerivedClears {
			if _, err := tx.Exec(ctx, c.query, c.args...); err != nil {
				return err
			}
		}
		r.Started, r.Next = true, 0
		if _, indexed, err := cursor(ctx, tx, ChainCursor(chain)); err != nil {
			return err
		} else if !indexed {
			// Nothing stored: nothing to derive.
			r.Done = true
			_, err := tx.Exec(ctx, "DELETE FROM settings WHERE key = ?", RederiveKey(chain))
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE settings SET value = ? WHERE key = ?", []byte("0"), RederiveKey(chain))
		return err
	})
	return r, err
}

func (s *sqlStore) StoredPBlocks(ctx context.Context, from uint64, n int) (_ []StoredPBlock, err error) {
	defer derrors.Wrap(&err, "store.StoredPBlocks(%d, %d)", from, n)
	if from > 1<<62 || n <= 0 {
		return nil, fmt.Errorf("out of range: %w", derrors.InvalidArgument)
	}
	var out []StoredPBlock
	err = s.db.RunQuery(ctx, "SELECT height, bytes FROM p_blocks WHERE height >= ? ORDER BY height LIMIT ?",
		func(rows *sql.Rows) error {
			var (
				h int64
				b []byte
			)
			if err := rows.Scan(&h, &b); err != nil {
				return err
			}
			out = append(out, StoredPBlock{Height: uint64(h), Bytes: nonNil(b)})
			return nil
		}, int64(from), n)
	if err != nil || len(out) == 0 {
		return out, err
	}
	byHeight := make(map[uint64]*StoredPBlock, len(out))
	for i := range out {
		byHeight[out[i].Height] = &out[i]
	}
	err = s.db.RunQuery(ctx, `SELECT block_height, staker_tx_id, bytes FROM p_reward_utxos
		WHERE block_height BETWEEN ? AND ? ORDER BY block_height, staker_tx_id, idx`,
		func(rows *sql.Rows) error {
			var (
				h         int64
				staker, b []byte
			)
			if err := rows.Scan(&h, &staker, &b); err != nil {
				return err
			}
			id, err := ids.ToID(staker)
			if err != nil {
				return fmt.Errorf("stored reward UTXO of block %d: %w", h, err)
			}
			sb := byHeight[uint64(h)]
			if sb == nil {
				return nil
			}
			if sb.Rewards == nil {
				sb.Rewards = map[ids.ID][][]byte{}
			}
			sb.Rewards[id] = append(sb.Rewards[id], b)
			return nil
		}, int64(out[0].Height), int64(out[len(out)-1].Height))
	return out, err
}

func (s *sqlStore) RederivePBlocks(ctx context.Context, blocks []*pchain.Block) (r Rederive, err error) {
	if len(blocks) == 0 {
		return r, fmt.Errorf("store.RederivePBlocks: no blocks: %w", derrors.InvalidArgument)
	}
	defer derrors.Wrap(&err, "store.RederivePBlocks(%s)", batchLabel(blocks))
	for i, b := range blocks {
		if b == nil || (i > 0 && b.Height != blocks[i-1].Height+1) {
			return r, fmt.Errorf("the batch is not consecutive blocks: %w", derrors.InvalidArgument)
		}
	}
	err = s.db.Transact(ctx, func(tx *database.DB) error {
		var ok bool
		if r, ok, err = rederiveState(ctx, tx, internal.PChain); err != nil {
			return err
		}
		if !ok || !r.Started {
			return fmt.Errorf("no rederive of the P-chain is under way: %w", derrors.Unavailable)
		}
		if blocks[0].Height != r.Next {
			return fmt.Errorf("the batch starts at %d, the rederive is at %d: %w", blocks[0].Height, r.Next, derrors.Unavailable)
		}
		last := blocks[len(blocks)-1].Height
		if last > r.Target {
			return fmt.Errorf("the batch ends at %d, past the P-chain's cursor %d: %w", last, r.Target, derrors.InvalidArgument)
		}
		for _, apply := range pAppliers {
			if err := apply(ctx, tx, blocks); err != nil {
				return err
			}
		}
		r.Next = last + 1
		if r.Next > r.Target {
			r.Done = true
			_, err := tx.Exec(ctx, "DELETE FROM settings WHERE key = ?", RederiveKey(internal.PChain))
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE settings SET value = ? WHERE key = ?",
			[]byte(strconv.FormatUint(r.Next, 10)), RederiveKey(internal.PChain))
		return err
	})
	return r, err
}

// writePRewardUTXOs keeps the reward UTXOs the node reported for the
// batch's RewardValidatorTxs (pchain.Block.Rewards): node input, stored
// beside the blocks for a rederive.
func writePRewardUTXOs(ctx context.Context, tx *database.DB, blocks []*pchain.Block) error {
	var rows [][]any
	for _, b := range blocks {
		for staker, us := range b.Rewards {
			for _, u := range us {
				rows = append(rows, []any{staker[:], int64(u.UTXO.OutputIndex), int64(b.Height), nonNil(u.Bytes)})
			}
		}
	}
	_, err := tx.BulkInsert(ctx, "p_reward_utxos", []string{"staker_tx_id", "idx", "block_height", "bytes"}, rows, onConflictDoNothing)
	return err
}
