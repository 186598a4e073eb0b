package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// RederiveStore is the store's side of a rederive: the derived state of a
// chain written again from what is stored of it (its blocks, the X-chain's
// mirrored DAG txs), without the node (see derive.Rederive, which decodes
// them). A rederive is asked for by a settings row "rederive:CHAIN"
// (RequestRederive, or a migration that inserts it with the value
// 'request'); StartRederive clears the chain's derived state and turns the
// row into the rederive's cursor, "PHASE:NEXT" (the X-chain's DAG txs,
// phase "dag", then the blocks, phase "blocks"); each Rederive* batch
// moves it in the batch's transaction, and the row is deleted once the
// chain's cursors are reached. A crash resumes at the cursor. While a
// rederive of a chain is pending, its indexer's applies are refused.
type RederiveStore interface {
	// RequestRederive asks for a rederive of chain from the genesis,
	// unless one is pending already (then it changes nothing).
	RequestRederive(ctx context.Context, chain internal.Chain) error
	// PendingRederives returns the rederives asked for or under way.
	PendingRederives(ctx context.Context) ([]Rederive, error)
	// StartRederive clears the derived state of a requested rederive's
	// chain and sets its cursor to the first phase's 0; a rederive under
	// way is left as it is. It returns the rederive's state.
	StartRederive(ctx context.Context, chain internal.Chain) (Rederive, error)
	// StoredPBlocks and StoredXBlocks return up to n stored blocks from
	// height from on, ascending; the P-chain's with the reward UTXOs
	// stored for them.
	StoredPBlocks(ctx context.Context, from uint64, n int) ([]StoredBlock, error)
	StoredXBlocks(ctx context.Context, from uint64, n int) ([]StoredBlock, error)
	// RederivePBlocks, RederiveXBlocks and RederiveXDAGTxs run the
	// chain's derivation (derive)
	// over a batch (what is stored, decoded again, consecutive, starting
	// at the rederive's cursor in its phase) and move the cursor past it,
	// in one transaction; the last batch of the last phase ends the
	// rederive.
	RederivePBlocks(ctx context.Context, batch *internal.PBatch, derive PDerivation) (Rederive, error)
	RederiveXBlocks(ctx context.Context, blocks []*internal.XBlockData, derive XDerivation) (Rederive, error)
	RederiveXDAGTxs(ctx context.Context, txs []*internal.XDAGTxData, derive XDAGDerivation) (Rederive, error)
	// StoredCAtomicBlocks returns the stored atomic txs of up to n C-chain
	// blocks from height from on, by block, ascending: only the atomic txs
	// of the C-chain's blocks are stored, and all its derived state
	// (shared memory) comes from them.
	StoredCAtomicBlocks(ctx context.Context, from uint64, n int) ([]StoredCBlock, error)
	// RederiveCBlocks runs derive over the atomic txs of the C-chain's
	// blocks (those of heights first..last that have any) again.
	RederiveCBlocks(ctx context.Context, first, last uint64, blocks []*internal.CBlockData, derive CDerivation) (Rederive, error)
}

// StoredCBlock is a C-chain block's stored atomic txs, in block order.
type StoredCBlock struct {
	Height    uint64
	Hash      ids.ID
	Timestamp time.Time
	Txs       [][]byte
}

// Rederive is the state of a chain's rederive.
type Rederive struct {
	Chain internal.Chain
	// Started is false while the rederive is only asked for.
	Started bool
	// Phase is what the rederive applies: RederiveBlocks or RederiveDAG.
	Phase string
	// Next is the next height (index, for the DAG) to apply; Target the
	// phase's cursor, the last to apply.
	Next, Target uint64
	// Done is set once the last phase is applied: the row is gone.
	Done bool
}

// Left is how many heights (or DAG txs) are left in the rederive's phase.
func (r Rederive) Left() uint64 {
	if r.Done || !r.Started || r.Next > r.Target {
		return 0
	}
	return r.Target + 1 - r.Next
}

// The phases of a rederive.
const (
	RederiveDAG    = "dag"
	RederiveBlocks = "blocks"
)

// StoredBlock is a stored block's bytes; a P-chain block's with the
// reward UTXOs stored for its RewardValidatorTxs, by the staker they
// reward, in the node's encoding.
type StoredBlock struct {
	Height  uint64
	Bytes   []byte
	Rewards map[ids.ID][][]byte
}

// RederiveKey is the settings key of chain's rederive.
func RederiveKey(chain internal.Chain) string { return "rederive:" + string(chain) }

// rederiveRequested is a rederive's settings value before it starts.
const rederiveRequested = "request"

type rederivePhase struct {
	name   string
	cursor CursorKey
}

// rederiveSpec is what a chain's rederive clears and applies: tables
// written by its derivation alone (emptied; children before parents),
// deletes of its rows in tables shared with other chains, and its phases
// in order, each up to its cursor.
type rederiveSpec struct {
	tables []string
	clears []string
	phases []rederivePhase
}

var rederiveSpecs = map[internal.Chain]rederiveSpec{
	internal.PChain: {
		tables: []string{
			"p_utxo_addresses", "p_utxos", "p_imported_utxos", "p_subnets", "p_blockchains",
			"p_stakers", "p_staker_owners", "p_l1_validator_events", "p_l1_validators", "p_l1_validator_owners",
			"p_l1_fees", "p_l1_fee_validators", "p_l1_fee_days", "p_l1_balance_changes", "p_reward_state", "p_reward_subnets", "p_supply_history",
			"p_historical_rewards", "p_historical_reward_owners",
		},
		clears: []string{
			"DELETE FROM address_utxos WHERE origin = 'P'",
			// The sums, of the rows kept too: the chain's blocks mark
			// them spent again (a UTXO exported to it).
			"DELETE FROM address_balances", recountAddressBalances,
			"DELETE FROM address_txs WHERE chain = 'P'",
			"DELETE FROM metric_chains WHERE chain_key = 'P'",
			"DELETE FROM metric_rollups WHERE chain_key = 'P'",
			"DELETE FROM metric_addresses WHERE chain_key = 'P'",
		},
		phases: []rederivePhase{{RederiveBlocks, ChainCursor(internal.PChain)}},
	},
	internal.CChain: {
		tables: []string{"c_atomic_utxo_addresses", "c_atomic_utxos", "c_imported_utxos"},
		clears: []string{"DELETE FROM address_utxos WHERE origin = 'C'", "DELETE FROM address_txs WHERE chain = 'C'",
			"DELETE FROM address_balances", recountAddressBalances},
		phases: []rederivePhase{{RederiveBlocks, ChainCursor(internal.CChain)}},
	},
	// The X-chain's DAG vertices (x_vertices, x_vertex_txs; xvertices.go)
	// are not cleared: each is its X/vtx container decoded, depending on no
	// other stored value, so a rederive would write them again unchanged.
	internal.XChain: {
		tables: []string{"x_utxo_addresses", "x_utxos", "x_imported_utxos", "x_early_spends", "x_dag_txs"},
		clears: []string{
			"DELETE FROM address_utxos WHERE origin = 'X'",
			"DELETE FROM address_balances", recountAddressBalances,
			"DELETE FROM address_txs WHERE chain = 'X'",
			"DELETE FROM metric_chains WHERE chain_key = 'X'",
			"DELETE FROM metric_rollups WHERE chain_key = 'X'",
			"DELETE FROM metric_addresses WHERE chain_key = 'X'",
		},
		phases: []rederivePhase{{RederiveDAG, XDAGCursor}, {RederiveBlocks, ChainCursor(internal.XChain)}},
	},
}

// rederivable are the chains a rederive can run on, in the order pending
// rederives run.
var rederivable = []internal.Chain{internal.PChain, internal.XChain, internal.CChain}

func rederiveState(ctx context.Context, db *database.DB, chain internal.Chain) (r Rederive, ok bool, err error) {
	r.Chain = chain
	spec, known := rederiveSpecs[chain]
	if !known {
		return r, false, nil
	}
	var v []byte
	err = db.QueryRow(ctx, "SELECT value FROM settings WHERE key = ?", RederiveKey(chain)).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return r, false, nil
	case err != nil:
		return r, false, err
	}
	if string(v) == rederiveRequested {
		return r, true, nil
	}
	phase, next, _ := strings.Cut(string(v), ":")
	for _, p := range spec.phases {
		if p.name != phase {
			continue
		}
		if r.Next, err = strconv.ParseUint(next, 10, 63); err != nil {
			break
		}
		if r.Target, _, err = cursor(ctx, db, p.cursor); err != nil {
			return r, false, err
		}
		r.Started, r.Phase = true, phase
		return r, true, nil
	}
	return r, false, fmt.Errorf("the %s-chain's rederive cursor %q is not PHASE:HEIGHT", chain, v)
}

// enterPhase moves chain's rederive to the first of its phases from i on
// with anything stored, or ends it.
func enterPhase(ctx context.Context, tx *database.DB, chain internal.Chain, i int) (Rederive, error) {
	phases := rederiveSpecs[chain].phases
	for ; i < len(phases); i++ {
		cur, ok, err := cursor(ctx, tx, phases[i].cursor)
		if err != nil {
			return Rederive{}, err
		}
		if !ok {
			continue // nothing stored of this phase
		}
		r := Rederive{Chain: chain, Started: true, Phase: phases[i].name, Next: 0, Target: cur}
		_, err = tx.Exec(ctx, "UPDATE settings SET value = ? WHERE key = ?", []byte(phases[i].name+":0"), RederiveKey(chain))
		return r, err
	}
	_, err := tx.Exec(ctx, "DELETE FROM settings WHERE key = ?", RederiveKey(chain))
	return Rederive{Chain: chain, Started: true, Done: true}, err
}

// rederiveBatch runs apply over a batch from first to last of chain's
// rederive in its phase, then moves the rederive past it, in one
// transaction.
func (s *sqlStore) rederiveBatch(ctx context.Context, chain internal.Chain, phase string, first, last uint64,
	apply func(tx *database.DB) error) (r Rederive, err error) {
	err = s.db.Transact(ctx, func(tx *database.DB) error {
		var ok bool
		if r, ok, err = rederiveState(ctx, tx, chain); err != nil {
			return err
		}
		if !ok || !r.Started || r.Phase != phase {
			return fmt.Errorf("no rederive of the %s-chain's %s is under way: %w", chain, phase, derrors.Unavailable)
		}
		if first != r.Next {
			return fmt.Errorf("the batch starts at %d, the rederive is at %d: %w", first, r.Next, derrors.Unavailable)
		}
		if last > r.Target {
			return fmt.Errorf("the batch ends at %d, past the cursor %d: %w", last, r.Target, derrors.InvalidArgument)
		}
		if err := apply(tx); err != nil {
			return err
		}
		if last+1 <= r.Target {
			r.Next = last + 1
			_, err := tx.Exec(ctx, "UPDATE settings SET value = ? WHERE key = ?",
				[]byte(phase+":"+strconv.FormatUint(r.Next, 10)), RederiveKey(chain))
			return err
		}
		phases := rederiveSpecs[chain].phases
		for i, p := range phases {
			if p.name == phase {
				r, err = enterPhase(ctx, tx, chain, i+1)
				return err
			}
		}
		return fmt.Errorf("the %s-chain's rederive has no phase %q", chain, phase)
	})
	return r, err
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
	if _, ok := rederiveSpecs[chain]; !ok {
		return fmt.Errorf("the %s-chain cannot be rederived (the P-, X- and C-chains can): %w", chain, derrors.InvalidArgument)
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
	spec, known := rederiveSpecs[chain]
	if !known {
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
		for _, t := range spec.tables {
			if _, err := tx.Exec(ctx, "DELETE FROM "+t); err != nil {
				return err
			}
		}
		for _, q := range spec.clears {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		r, err = enterPhase(ctx, tx, chain, 0)
		return err
	})
	return r, err
}

func (s *sqlStore) StoredPBlocks(ctx context.Context, from uint64, n int) (_ []StoredBlock, err error) {
	defer derrors.Wrap(&err, "store.StoredPBlocks(%d, %d)", from, n)
	out, err := s.storedBlocks(ctx, "p_blocks", from, n)
	if err != nil || len(out) == 0 {
		return out, err
	}
	byHeight := make(map[uint64]*StoredBlock, len(out))
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

func (s *sqlStore) StoredXBlocks(ctx context.Context, from uint64, n int) (_ []StoredBlock, err error) {
	defer derrors.Wrap(&err, "store.StoredXBlocks(%d, %d)", from, n)
	return s.storedBlocks(ctx, "x_blocks", from, n)
}

// storedBlocks reads up to n blocks of table from height from on.
func (s *sqlStore) storedBlocks(ctx context.Context, table string, from uint64, n int) ([]StoredBlock, error) {
	if from > math.MaxInt64 || n <= 0 {
		return nil, fmt.Errorf("out of range: %w", derrors.InvalidArgument)
	}
	var out []StoredBlock
	err := s.db.RunQuery(ctx, "SELECT height, bytes FROM "+table+" WHERE height >= ? ORDER BY height LIMIT ?",
		func(rows *sql.Rows) error {
			var (
				h int64
				b []byte
			)
			if err := rows.Scan(&h, &b); err != nil {
				return err
			}
			out = append(out, StoredBlock{Height: uint64(h), Bytes: nonNil(b)})
			return nil
		}, int64(from), n)
	return out, err
}

func (s *sqlStore) RederivePBlocks(ctx context.Context, batch *internal.PBatch, derive PDerivation) (r Rederive, err error) {
	if batch == nil || len(batch.Blocks) == 0 {
		return r, fmt.Errorf("store.RederivePBlocks: no blocks: %w", derrors.InvalidArgument)
	}
	blocks := batch.Blocks
	defer derrors.Wrap(&err, "store.RederivePBlocks(%s)", batchLabel(blocks))
	for i, b := range blocks {
		if b == nil || (i > 0 && b.Height != blocks[i-1].Height+1) {
			return r, fmt.Errorf("the batch is not consecutive blocks: %w", derrors.InvalidArgument)
		}
	}
	return s.rederiveBatch(ctx, internal.PChain, RederiveBlocks, blocks[0].Height, blocks[len(blocks)-1].Height,
		func(tx *database.DB) error { return runPDerivation(ctx, tx, derive, batch) })
}

func (s *sqlStore) RederiveXBlocks(ctx context.Context, blocks []*internal.XBlockData, derive XDerivation) (r Rederive, err error) {
	if len(blocks) == 0 {
		return r, fmt.Errorf("store.RederiveXBlocks: no blocks: %w", derrors.InvalidArgument)
	}
	for i, b := range blocks {
		if b == nil || (i > 0 && b.Height != blocks[i-1].Height+1) {
			return r, fmt.Errorf("store.RederiveXBlocks: the batch is not consecutive blocks: %w", derrors.InvalidArgument)
		}
	}
	first, last := blocks[0].Height, blocks[len(blocks)-1].Height
	defer derrors.Wrap(&err, "store.RederiveXBlocks(%d..%d)", first, last)
	return s.rederiveBatch(ctx, internal.XChain, RederiveBlocks, first, last,
		func(tx *database.DB) error { return runXDerivation(ctx, tx, derive, blocks) })
}

func (s *sqlStore) RederiveXDAGTxs(ctx context.Context, dtxs []*internal.XDAGTxData, derive XDAGDerivation) (r Rederive, err error) {
	if len(dtxs) == 0 || dtxs[0] == nil || dtxs[len(dtxs)-1] == nil {
		return r, fmt.Errorf("store.RederiveXDAGTxs: no txs: %w", derrors.InvalidArgument)
	}
	first, last := dtxs[0].Index, dtxs[len(dtxs)-1].Index
	defer derrors.Wrap(&err, "store.RederiveXDAGTxs(%d..%d)", first, last)
	write, err := xDAGWriter(dtxs, derive)
	if err != nil {
		return r, err
	}
	return s.rederiveBatch(ctx, internal.XChain, RederiveDAG, first, last,
		func(tx *database.DB) error { return write(ctx, tx) })
}

func (s *sqlStore) StoredCAtomicBlocks(ctx context.Context, from uint64, n int) (_ []StoredCBlock, err error) {
	defer derrors.Wrap(&err, "store.StoredCAtomicBlocks(%d, %d)", from, n)
	if from > math.MaxInt64 || n <= 0 {
		return nil, fmt.Errorf("out of range: %w", derrors.InvalidArgument)
	}
	var out []StoredCBlock
	err = s.db.RunQuery(ctx, `SELECT block_height, block_hash, timestamp, bytes FROM c_atomic_txs
		WHERE block_height IN (SELECT DISTINCT block_height FROM c_atomic_txs WHERE block_height >= ? ORDER BY block_height LIMIT ?)
		ORDER BY block_height, idx`, func(rows *sql.Rows) error {
		var (
			h, ts       int64
			hash, bytes []byte
		)
		if err := rows.Scan(&h, &hash, &ts, &bytes); err != nil {
			return err
		}
		if len(out) == 0 || out[len(out)-1].Height != uint64(h) {
			id, err := ids.ToID(hash)
			if err != nil {
				return fmt.Errorf("stored C-chain block %d: %w", h, err)
			}
			out = append(out, StoredCBlock{Height: uint64(h), Hash: id, Timestamp: fromUnixSeconds(ts)})
		}
		b := &out[len(out)-1]
		b.Txs = append(b.Txs, nonNil(bytes))
		return nil
	}, int64(from), n)
	return out, err
}

func (s *sqlStore) RederiveCBlocks(ctx context.Context, first, last uint64, blocks []*internal.CBlockData, derive CDerivation) (r Rederive, err error) {
	defer derrors.Wrap(&err, "store.RederiveCBlocks(%d..%d)", first, last)
	for i, b := range blocks {
		if b == nil || b.Height < first || b.Height > last || (i > 0 && b.Height <= blocks[i-1].Height) {
			return r, fmt.Errorf("the batch's blocks are not ascending within %d..%d: %w", first, last, derrors.InvalidArgument)
		}
	}
	if first > last {
		return r, fmt.Errorf("an empty range: %w", derrors.InvalidArgument)
	}
	return s.rederiveBatch(ctx, internal.CChain, RederiveBlocks, first, last,
		func(tx *database.DB) error { return runCDerivation(ctx, tx, derive, blocks) })
}

// writePRewardUTXOs keeps the reward UTXOs the node reported for the
// batch's RewardValidatorTxs (internal.PBlockData.Rewards): node input, stored
// beside the blocks for a rederive.
func writePRewardUTXOs(ctx context.Context, tx *database.DB, blocks []*internal.PBlockData) error {
	var rows [][]any
	for _, b := range blocks {
		for staker, us := range b.Rewards {
			for _, u := range us {
				rows = append(rows, []any{staker[:], int64(u.UTXO.OutputIndex), int64(b.Height), nonNil(u.Bytes)})
			}
		}
	}
	return tx.Append(ctx, "p_reward_utxos", []string{"staker_tx_id", "idx", "block_height", "bytes"}, rows, onConflictDoNothing)
}
