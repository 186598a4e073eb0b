package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/chainmetrics"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// MetricStore keeps the chain metrics' rollups (migration 0018), written by
// RollupMetrics inside each batch's transaction.
type MetricStore interface {
	// MetricChains returns the rollup state of every chain with a block
	// rolled up, by chain key.
	MetricChains(ctx context.Context) ([]MetricChain, error)
	// MetricRollups returns the rollups of key's periods of kind p that
	// start in [from, to], ascending by start.
	MetricRollups(ctx context.Context, key string, p chainmetrics.Period, from, to int64) ([]chainmetrics.Rollup, error)
	// MetricRollupBefore returns the last rollup of key's periods of kind p
	// that starts before ts; false when there is none.
	MetricRollupBefore(ctx context.Context, key string, p chainmetrics.Period, ts int64) (chainmetrics.Rollup, bool, error)
	// MetricActiveCounts returns, for each time of since (an hour's
	// start), how many of key's addresses were last seen at or after it:
	// in any role, as senders and as deployers. It reads the chain's
	// addresses seen since the earliest of since once, whatever len(since).
	MetricActiveCounts(ctx context.Context, key string, since []int64) ([]ActiveCounts, error)
	// MetricRollupSums returns, for each window (a list of ranges), the
	// sum of key's rollups of its ranges as chainmetrics.Rollup.Merge adds
	// them, with CumDeployers the greatest of theirs (the last period's),
	// in one round trip. The store sums, so that a year of days costs a
	// row a window, not a row a day.
	MetricRollupSums(ctx context.Context, key string, windows [][]RollupRange) ([]chainmetrics.Rollup, error)
	// StakingIntervals returns the subnet's stakers on its set at some
	// time of [from, to], and the first start of any of its stakers (0
	// when none): the staking metrics (stakingmetrics.go).
	StakingIntervals(ctx context.Context, subnetID ids.ID, from, to int64) ([]StakingInterval, int64, error)
	// ValidatorRewardOwners returns a page of the subnet's validators with
	// a reward owner on its set at some time of [from, to]
	// (stakingmetrics.go).
	ValidatorRewardOwners(ctx context.Context, subnetID ids.ID, from, to int64, offset, limit int) ([]ValidatorRewardAddresses, error)
}

// RollupRange is the rollups of a period that start in [From, To].
type RollupRange struct {
	Period   chainmetrics.Period
	From, To int64
}

// ActiveCounts are the distinct addresses of a chain seen since a time.
type ActiveCounts struct {
	Addresses, Senders, Deployers int64
}

// MetricChain is one chain's rollup state.
type MetricChain struct {
	Key string
	// NextHeight is the first height not rolled up yet.
	NextHeight uint64
	// FirstTS and LastTS are the times of the first block after the
	// genesis and of the last block rolled up (0 while none).
	FirstTS, LastTS int64
	Txs, Addresses  int64
	// UpdatedAt is when a rollup last changed the chain (unix seconds).
	UpdatedAt int64
}

// Chain keys of the primary network's chains: their cursor names. An EVM
// chain's key is its EVM chain id in decimal (EVMMetricKey).
const (
	PMetricKey = string(internal.PChain)
	XMetricKey = string(internal.XChain)
)

// EVMMetricKey is the metrics' key of the EVM chain with chain id evmChainID.
func EVMMetricKey(evmChainID uint64) string { return fmt.Sprint(evmChainID) }

// RollupMetrics rolls blocks (ascending heights of the chain keyed key,
// decoded by its chain package) up into the chain's metrics. It runs in the
// blocks' transaction tx; blocks below the chain's next height were rolled
// up before and are skipped, so re-applying a batch changes nothing. Each
// chain's derivation calls it last, after the UTXO steps: the
// P- and X-chains' senders are the owners of the UTXOs their txs consume.
//
// The EVM chains' derivation (derive/metrics) calls it with a
// chainmetrics.Block per block (gas, gas prices, fees, from/to addresses,
// contract creations) under EVMMetricKey(evmChainID).
func RollupMetrics(ctx context.Context, tx *database.DB, key string, blocks []chainmetrics.Block) error {
	return rollupMetrics(ctx, tx, tx, key, blocks)
}

// rollupMetrics is RollupMetrics reading the chain's metrics through
// read, which may be tx.Committed() where the transaction has not
// written them yet.
func rollupMetrics(ctx context.Context, tx, read *database.DB, key string, blocks []chainmetrics.Block) error {
	if len(blocks) == 0 {
		return nil
	}
	st, _, err := metricChain(ctx, read, key)
	if err != nil {
		return err
	}
	var todo []*chainmetrics.Block
	next := st.NextHeight
	for i := range blocks {
		b := &blocks[i]
		if b.Height < st.NextHeight {
			continue
		}
		next = max(next, b.Height+1)
		// The genesis is no day's block, and a block without a time
		// belongs to no period.
		if b.Height == 0 || b.Time <= 0 {
			continue
		}
		todo = append(todo, b)
	}
	if next == st.NextHeight {
		return nil
	}
	if next > math.MaxInt64 {
		return fmt.Errorf("height %d out of range: %w", next-1, derrors.InvalidArgument)
	}
	if len(todo) > 0 {
		if err := rollupBlocks(ctx, tx, read, &st, todo); err != nil {
			return fmt.Errorf("rolling up %s metrics: %w", key, err)
		}
	}
	st.NextHeight = next
	st.UpdatedAt = time.Now().Unix()
	return tx.Append(ctx, "metric_chains", metricChainColumns, [][]any{{key, int64(st.NextHeight), st.FirstTS, st.LastTS,
		st.Txs, st.Addresses, st.contracts, st.deployers, st.UpdatedAt}}, metricChainUpsert)
}

// metricState is a chain's row of metric_chains.
type metricState struct {
	MetricChain
	contracts, deployers int64
}

func metricChain(ctx context.Context, tx *database.DB, key string) (metricState, bool, error) {
	st := metricState{MetricChain: MetricChain{Key: key}}
	var next int64
	err := tx.QueryRow(ctx, `SELECT next_height, first_ts, last_ts, txs, addresses, contracts, deployers, updated_at
		FROM metric_chains WHERE chain_key = ?`, key).
		Scan(&next, &st.FirstTS, &st.LastTS, &st.Txs, &st.Addresses, &st.contracts, &st.deployers, &st.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return st, false, nil
	}
	st.NextHeight = uint64(next)
	return st, err == nil, err
}

// nPeriods is len(chainmetrics.Periods), hourPeriod the hour's index
// there: a batch keeps its blocks' period starts in arrays.
const (
	nPeriods   = 4
	hourPeriod = 0
)

func init() {
	if len(chainmetrics.Periods) != nPeriods || chainmetrics.Periods[hourPeriod] != chainmetrics.Hour {
		panic("store: nPeriods and hourPeriod disagree with chainmetrics.Periods")
	}
}

// Roles of an address, the columns of metric_addresses.
const (
	roleAny = iota
	roleSender
	roleDeployer
)

// addrState is an address's row of metric_addresses: when it was last
// seen in each role, -1 for never.
type addrState struct {
	last  [3]int64
	dirty bool
}

var (
	rollupColumns = []string{"chain_key", "period", "start", "blocks", "txs", "gas_used", "gas_price_sum", "gas_price_max",
		"fees", "max_tps", "max_gps", "first_ts", "last_ts", "prev_ts", "addresses", "senders", "contracts", "deployers",
		"cum_txs", "cum_addresses", "cum_contracts", "cum_deployers"}
	rollupUpsert       = upsertClause("chain_key, period, start", rollupColumns[3:])
	metricChainColumns = []string{"chain_key", "next_height", "first_ts", "last_ts", "txs", "addresses", "contracts", "deployers", "updated_at"}
	metricChainUpsert  = upsertClause("chain_key", metricChainColumns[1:])
	metricAddrColumns  = []string{"address", "chain_key", "last_seen", "last_sent", "last_deployed"}
	metricAddrUpsert   = upsertClause("address, chain_key", metricAddrColumns[2:])
)

func upsertClause(key string, cols []string) string {
	s := "ON CONFLICT (" + key + ") DO UPDATE SET "
	for i, c := range cols {
		if i > 0 {
			s += ", "
		}
		s += c + " = excluded." + c
	}
	return s
}

// loadAddrs reads the stored rows of the addresses keyed in addrs, by
// lists of database.InList: on PostgreSQL one array a chunk (one
// parameter to encode and bind, where a list of a thousand took a
// thousand).
func loadAddrs(ctx context.Context, tx *database.DB, key string, addrs map[string]*addrState) error {
	all := make([][]byte, 0, len(addrs))
	for a := range addrs {
		all = append(all, []byte(a))
	}
	per := readInList
	if tx.Dialect() == database.Postgres {
		per = arrayChunk
	}
	for start := 0; start < len(all); start += per {
		chunk := all[start:min(len(all), start+per)]
		if tx.Dialect() != database.Postgres {
			// Padded to a power of two (repeating an address changes
			// nothing), so that a few statement texts are prepared.
			chunk = slices.Clone(chunk)
			for n := 1 << bits.Len(uint(len(chunk)-1)); len(chunk) < n; {
				chunk = append(chunk, chunk[0])
			}
		}
		match, args := tx.InList(chunk)
		q := "SELECT address, last_seen, last_sent, last_deployed FROM metric_addresses WHERE address " + match + " AND chain_key = ?"
		args = append(args, key)
		err := tx.RunQuery(ctx, q, func(rows *sql.Rows) error {
			var (
				a  []byte
				st addrState
			)
			if err := rows.Scan(&a, &st.last[roleAny], &st.last[roleSender], &st.last[roleDeployer]); err != nil {
				return err
			}
			addrs[string(a)] = &st
			return nil
		}, args...)
		if err != nil {
			return err
		}
	}
	return nil
}

// rollupBlocks adds blocks (ascending, all after st's) to st's periods and
// totals.
func rollupBlocks(ctx context.Context, tx, read *database.DB, st *metricState, blocks []*chainmetrics.Block) error {
	key := st.Key
	if st.FirstTS == 0 {
		st.FirstTS = blocks[0].Time
	}
	// starts[i][p] is the start of block i's period Periods[p].
	starts := make([][nPeriods]int64, len(blocks))
	for i, b := range blocks {
		for p, period := range chainmetrics.Periods {
			starts[i][p] = period.Start(b.Time)
		}
	}
	// Each period's rollups the batch touches, read, then added to.
	rollups, err := batchRollups(ctx, read, key, starts[0], starts[len(starts)-1])
	if err != nil {
		return err
	}
	for p := range chainmetrics.Periods {
		m := rollups[p]
		prev := st.LastTS
		for i, b := range blocks {
			s := starts[i][p]
			r := m[s]
			if r == nil {
				r = &chainmetrics.Rollup{Start: s}
				m[s] = r
			}
			r.Add(b, prev)
			prev = b.Time
		}
	}

	// Distinct counts: an address is new to a period when it was last
	// seen (in that role) before the period, since a chain's blocks come in
	// time order; new to the chain when it was never seen.
	addrs := map[string]*addrState{}
	for _, b := range blocks {
		for _, l := range [][][]byte{b.Addresses, b.Senders, b.Deployers} {
			for _, a := range l {
				addrs[string(a)] = nil
			}
		}
	}
	if err := loadAddrs(ctx, read, key, addrs); err != nil {
		return err
	}
	see := func(a []byte, role, i int) {
		as := addrs[string(a)]
		if as == nil {
			as = &addrState{last: [3]int64{-1, -1, -1}}
			addrs[string(a)] = as
		}
		// The hour is enough to tell every period, and an address seen
		// again within it leaves its row as it is.
		hour := starts[i][hourPeriod]
		last := as.last[role]
		if last == hour {
			return
		}
		as.last[role], as.dirty = hour, true
		switch {
		case last >= 0:
		case role == roleAny:
			st.Addresses++
		case role == roleDeployer:
			st.deployers++
		}
		for p, period := range chainmetrics.Periods {
			s := starts[i][p]
			if last >= 0 && period.Start(last) == s {
				continue
			}
			r := rollups[p][s]
			switch role {
			case roleAny:
				r.Addresses++
			case roleSender:
				r.Senders++
			case roleDeployer:
				r.Deployers++
			}
		}
	}
	for i, b := range blocks {
		for _, a := range b.Addresses {
			see(a, roleAny, i)
		}
		for _, a := range b.Senders {
			see(a, roleAny, i)
			see(a, roleSender, i)
		}
		for _, a := range b.Deployers {
			see(a, roleAny, i)
			see(a, roleDeployer, i)
		}
		st.Txs += int64(b.Txs)
		st.contracts += int64(b.Contracts)
		st.LastTS = b.Time
		// The totals after a block are the cumulative counts of the
		// periods it lies in (their last block's win).
		for p := range chainmetrics.Periods {
			r := rollups[p][starts[i][p]]
			r.CumTxs, r.CumAddresses, r.CumContracts, r.CumDeployers = st.Txs, st.Addresses, st.contracts, st.deployers
		}
	}
	var addrRows [][]any
	for a, as := range addrs {
		if as != nil && as.dirty {
			addrRows = append(addrRows, []any{[]byte(a), key, as.last[roleAny], as.last[roleSender], as.last[roleDeployer]})
		}
	}
	// In key order, the index pages an upsert touches follow each other.
	slices.SortFunc(addrRows, func(x, y []any) int { return bytes.Compare(x[0].([]byte), y[0].([]byte)) })
	if err := tx.Append(ctx, "metric_addresses", metricAddrColumns, addrRows, metricAddrUpsert); err != nil {
		return err
	}

	var rows [][]any
	for p, period := range chainmetrics.Periods {
		for _, s := range slices.Sorted(maps.Keys(rollups[p])) {
			r := rollups[p][s]
			rows = append(rows, []any{key, string(period), r.Start, r.Blocks, r.Txs, r.GasUsed, r.GasPriceSum, r.GasPrice,
				r.Fees, r.MaxTPS, r.MaxGPS, r.FirstTS, r.LastTS, r.PrevTS, r.Addresses, r.Senders, r.Contracts, r.Deployers,
				r.CumTxs, r.CumAddresses, r.CumContracts, r.CumDeployers})
		}
	}
	return tx.Append(ctx, "metric_rollups", rollupColumns, rows, rollupUpsert)
}

// batchRollupsQuery reads a chain's stored rollups of every period from
// the start of the first block's to that of the last's: one arm per
// period, each an index range, in one round trip.
var batchRollupsQuery = func() string {
	var arms []string
	for p := range chainmetrics.Periods {
		arms = append(arms, fmt.Sprintf("SELECT %d AS p, %s FROM metric_rollups WHERE chain_key = ? AND period = ? AND start BETWEEN ? AND ?",
			p, rollupFields))
	}
	return strings.Join(arms, " UNION ALL ")
}()

// batchRollups returns, per period, the chain's stored rollups from
// first[p] to last[p], keyed by start.
func batchRollups(ctx context.Context, tx *database.DB, key string, first, last [nPeriods]int64) ([nPeriods]map[int64]*chainmetrics.Rollup, error) {
	var out [nPeriods]map[int64]*chainmetrics.Rollup
	args := make([]any, 0, 4*nPeriods)
	for p, period := range chainmetrics.Periods {
		out[p] = map[int64]*chainmetrics.Rollup{}
		args = append(args, key, string(period), first[p], last[p])
	}
	err := tx.RunPrepared(ctx, batchRollupsQuery, func(rows *sql.Rows) error {
		var p int
		x, err := scanRollup(rows, &p)
		if err != nil {
			return err
		}
		if p < 0 || p >= nPeriods {
			return fmt.Errorf("rollup of period %d", p)
		}
		out[p][x.Start] = &x
		return nil
	}, args...)
	return out, err
}

const (
	rollupFields = `start, blocks, txs, gas_used, gas_price_sum, gas_price_max, fees, max_tps, max_gps,
	first_ts, last_ts, prev_ts, addresses, senders, contracts, deployers, cum_txs, cum_addresses, cum_contracts, cum_deployers`
	rollupSelect = "SELECT " + rollupFields + " FROM metric_rollups"
)

// scanRollup scans a row of rollupSelect's columns, after those lead
// scans into.
func scanRollup(r scanner, lead ...any) (chainmetrics.Rollup, error) {
	var x chainmetrics.Rollup
	err := r.Scan(append(lead, &x.Start, &x.Blocks, &x.Txs, &x.GasUsed, &x.GasPriceSum, &x.GasPrice, &x.Fees, &x.MaxTPS, &x.MaxGPS,
		&x.FirstTS, &x.LastTS, &x.PrevTS, &x.Addresses, &x.Senders, &x.Contracts, &x.Deployers,
		&x.CumTxs, &x.CumAddresses, &x.CumContracts, &x.CumDeployers)...)
	return x, err
}

func readRollups(ctx context.Context, db *database.DB, key string, p chainmetrics.Period, from, to int64) ([]chainmetrics.Rollup, error) {
	var out []chainmetrics.Rollup
	err := db.RunPrepared(ctx, rollupSelect+" WHERE chain_key = ? AND period = ? AND start BETWEEN ? AND ? ORDER BY start",
		func(rows *sql.Rows) error {
			r, err := scanRollup(rows)
			if err != nil {
				return err
			}
			out = append(out, r)
			return nil
		}, key, string(p), from, to)
	return out, err
}

func (s *sqlStore) MetricRollups(ctx context.Context, key string, p chainmetrics.Period, from, to int64) (_ []chainmetrics.Rollup, err error) {
	defer derrors.Wrap(&err, "store.MetricRollups(%s, %s, %d, %d)", key, p, from, to)
	return readRollups(ctx, s.db, key, p, from, to)
}

func (s *sqlStore) MetricRollupBefore(ctx context.Context, key string, p chainmetrics.Period, ts int64) (_ chainmetrics.Rollup, _ bool, err error) {
	defer derrors.Wrap(&err, "store.MetricRollupBefore(%s, %s, %d)", key, p, ts)
	var (
		r     chainmetrics.Rollup
		found bool
	)
	err = s.db.RunPrepared(ctx, rollupSelect+" WHERE chain_key = ? AND period = ? AND start < ? ORDER BY start DESC LIMIT 1",
		func(rows *sql.Rows) error {
			var err error
			r, err = scanRollup(rows)
			found = err == nil
			return err
		}, key, string(p), ts)
	return r, found, err
}

func (s *sqlStore) MetricChains(ctx context.Context) (_ []MetricChain, err error) {
	defer derrors.Wrap(&err, "store.MetricChains")
	var out []MetricChain
	err = s.db.RunQuery(ctx, `SELECT chain_key, next_height, first_ts, last_ts, txs, addresses, updated_at
		FROM metric_chains WHERE first_ts > 0 ORDER BY chain_key`, func(rows *sql.Rows) error {
		var (
			c    MetricChain
			next int64
		)
		if err := rows.Scan(&c.Key, &next, &c.FirstTS, &c.LastTS, &c.Txs, &c.Addresses, &c.UpdatedAt); err != nil {
			return err
		}
		c.NextHeight = uint64(next)
		out = append(out, c)
		return nil
	})
	return out, err
}

// InputOwners returns the owners' addresses of the UTXOs ids on the
// P-chain's UTXO lists (inputOwners).
func (t *PTx) InputOwners(ctx context.Context, ids []ids.ID) (map[ids.ID][][]byte, error) {
	return inputOwners(ctx, t.db, t.spent[internal.PChain], internal.PChain, ids)
}

// RollupMetrics rolls the blocks up into the P-chain's metrics.
func (t *PTx) RollupMetrics(ctx context.Context, blocks []chainmetrics.Block) error {
	return RollupMetrics(ctx, t.db, string(internal.PChain), blocks)
}

// InputOwners returns the owners' addresses of the UTXOs ids on the
// X-chain's UTXO lists (inputOwners).
func (t *XTx) InputOwners(ctx context.Context, ids []ids.ID) (map[ids.ID][][]byte, error) {
	return inputOwners(ctx, t.db, t.spent[internal.XChain], internal.XChain, ids)
}

// RollupMetrics rolls the blocks up into the X-chain's metrics.
func (t *XTx) RollupMetrics(ctx context.Context, blocks []chainmetrics.Block) error {
	return RollupMetrics(ctx, t.db, string(internal.XChain), blocks)
}

// inputOwners returns the owners' addresses of the UTXOs ids on chain's
// UTXO lists (its own and those exported to it). An imported UTXO whose
// export is not stored yet has none. Those the batch's steps marked
// spent come from marked (the batch's spent owners); the others (a batch applied again
// finds its UTXOs spent already) are read.
//
// The ids go as one list (database.InList): on PostgreSQL one array,
// which halved this lookup's time next to an IN list of a batch's 256
// spent UTXOs. (The same change made the address lookups of loadAddrs and
// the UTXO steps' lookups slower; they keep their IN lists.)
func inputOwners(ctx context.Context, tx *database.DB, marked map[ids.ID][][]byte, chain internal.Chain, all []ids.ID) (map[ids.ID][][]byte, error) {
	owners := map[ids.ID][][]byte{}
	var missing []ids.ID
	for _, id := range all {
		if o, ok := marked[id]; ok {
			owners[id] = o
		} else {
			missing = append(missing, id)
		}
	}
	for start := 0; start < len(missing); start += readInList {
		chunk := missing[start:min(len(missing), start+readInList)]
		values := make([][]byte, len(chunk))
		for i := range chunk {
			values[i] = chunk[i][:]
		}
		in, args := tx.InList(values)
		err := tx.RunQuery(ctx, "SELECT utxo_id, address FROM address_utxos WHERE utxo_id "+in+" AND chain = ?",
			func(r *sql.Rows) error {
				var id, addr []byte
				if err := r.Scan(&id, &addr); err != nil {
					return err
				}
				uid, err := ids.ToID(id)
				if err != nil {
					return err
				}
				owners[uid] = append(owners[uid], addr)
				return nil
			}, append(args, string(chain))...)
		if err != nil {
			return nil, err
		}
	}
	return owners, nil
}

// MetricDecoder decodes a stored block of a P- or X-chain (its height and
// bytes) into what the chain metrics read of it: the derivation layer's,
// handed to CatchUpMetrics.
type MetricDecoder func(height uint64, b []byte) (internal.UTXOBlock, error)

// MetricDerivation rolls up, through tx, a P- or X-chain's blocks as
// MetricDecoder decoded them (derive/metrics).
type MetricDerivation func(ctx context.Context, tx *MetricsTx, blocks []internal.UTXOBlock) error

// MetricsTx is a metrics catch-up's transaction as CatchUpMetrics hands
// it to its derivation, bound to one chain; valid only during that call.
type MetricsTx struct {
	db    *database.DB
	chain internal.Chain
}

// InputOwners returns the owners' addresses of the UTXOs ids on the
// chain's UTXO lists (inputOwners).
func (t *MetricsTx) InputOwners(ctx context.Context, ids []ids.ID) (map[ids.ID][][]byte, error) {
	return inputOwners(ctx, t.db, nil, t.chain, ids)
}

// RollupMetrics rolls the blocks up into the chain's metrics.
func (t *MetricsTx) RollupMetrics(ctx context.Context, blocks []chainmetrics.Block) error {
	return RollupMetrics(ctx, t.db, string(t.chain), blocks)
}

// MetricsCatchUpChains are the chains whose metrics a catch-up rolls up
// from their stored blocks.
var MetricsCatchUpChains = []internal.Chain{internal.PChain, internal.XChain}

// MetricsLeft returns the heights from..to of chain's stored blocks that
// its metrics have not rolled up (the first and the last of them) (a store indexed before migration 0018,
// or by a release without them), ok false when there are none or the
// chain's rederive, pending, will roll them up. The catch-up
// (derive.RunBackfills, CatchUpMetrics) must roll them up before the
// indexer applies more: a rollup skips the heights below the blocks it is
// handed.
func (s *sqlStore) MetricsLeft(ctx context.Context, chain internal.Chain) (from, to uint64, ok bool, err error) {
	defer derrors.Wrap(&err, "store.MetricsLeft(%s)", chain)
	return metricsLeft(ctx, s.db, chain)
}

func metricsLeft(ctx context.Context, db *database.DB, chain internal.Chain) (from, to uint64, ok bool, err error) {
	if _, ok := metricBlockTables[chain]; !ok {
		return 0, 0, false, derrors.Invalid("no metrics catch-up of chain %q", chain)
	}
	cur, ok, err := cursor(ctx, db, ChainCursor(chain))
	if err != nil || !ok {
		return 0, 0, false, err // nothing indexed yet
	}
	if _, pending, err := rederiveState(ctx, db, chain); err != nil || pending {
		return 0, 0, false, err // the rederive rolls the metrics up again
	}
	st, _, err := metricChain(ctx, db, string(chain))
	if err != nil || st.NextHeight > cur {
		return 0, 0, false, err
	}
	// The stored blocks in between: a chain's first may be above 0.
	var lo, hi sql.NullInt64
	err = db.QueryRow(ctx, "SELECT MIN(height), MAX(height) FROM "+metricBlockTables[chain]+" WHERE height BETWEEN ? AND ?",
		u64(st.NextHeight), u64(cur)).Scan(&lo, &hi)
	if err != nil || !lo.Valid || !hi.Valid {
		return 0, 0, false, err
	}
	return uint64(lo.Int64), uint64(hi.Int64), true, nil
}

// metricBlockTables are the tables of the stored blocks of the chains in
// MetricsCatchUpChains.
var metricBlockTables = map[internal.Chain]string{internal.PChain: "p_blocks", internal.XChain: "x_blocks"}

// CatchUpMetrics rolls the stored blocks from..to of chain up into its
// metrics, in one transaction, decoded by decode and rolled up by derive
// (the derivation layer's: the store decodes and derives nothing). Blocks
// rolled up already are skipped.
func (s *sqlStore) CatchUpMetrics(ctx context.Context, chain internal.Chain, from, to uint64, decode MetricDecoder, derive MetricDerivation) (err error) {
	defer derrors.Wrap(&err, "store.CatchUpMetrics(%s, %d..%d)", chain, from, to)
	table, ok := metricBlockTables[chain]
	if !ok {
		return derrors.Invalid("no metrics catch-up of chain %q", chain)
	}
	return s.db.Transact(ctx, func(tx *database.DB) error {
		var ubs []internal.UTXOBlock
		err := tx.RunQuery(ctx, "SELECT height, bytes FROM "+table+" WHERE height BETWEEN ? AND ? ORDER BY height",
			func(rows *sql.Rows) error {
				var (
					height int64
					b      []byte
				)
				if err := rows.Scan(&height, &b); err != nil {
					return err
				}
				ub, err := decode(uint64(height), b)
				if err != nil {
					return fmt.Errorf("stored block %d: %w", height, err)
				}
				ubs = append(ubs, ub)
				return nil
			}, u64(from), u64(to))
		if err != nil {
			return err
		}
		return derive(ctx, &MetricsTx{db: tx, chain: chain}, ubs)
	})
}

// RollupMetrics rolls the chain's blocks (as derive/metrics sees them)
// up under its EVM chain id (EVMMetricKey).
func (t *EVMTx) RollupMetrics(ctx context.Context, blocks []chainmetrics.Block) error {
	return rollupMetrics(ctx, t.db, t.reads(), EVMMetricKey(uint64(t.cid)), blocks)
}

func (s *sqlStore) MetricActiveCounts(ctx context.Context, key string, since []int64) (_ []ActiveCounts, err error) {
	defer derrors.Wrap(&err, "store.MetricActiveCounts(%s, %v)", key, since)
	if len(since) == 0 {
		return nil, nil
	}
	var (
		cols []string
		args []any
	)
	for _, t := range since {
		cols = append(cols, "COUNT(CASE WHEN last_seen >= ? THEN 1 END)", "COUNT(CASE WHEN last_sent >= ? THEN 1 END)",
			"COUNT(CASE WHEN last_deployed >= ? THEN 1 END)")
		args = append(args, t, t, t)
	}
	// Only the rows seen since the earliest time can count: a sender or a
	// deployer is seen (in any role) in the same hour, so last_seen is
	// never before last_sent or last_deployed. The range walks the
	// metric_addresses_recent index, which covers the columns.
	args = append(args, key, slices.Min(since))
	out := make([]ActiveCounts, len(since))
	err = s.db.RunQuery(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM metric_addresses WHERE chain_key = ? AND last_seen >= ?", func(rows *sql.Rows) error {
		dst := make([]any, 0, 3*len(since))
		for i := range out {
			dst = append(dst, &out[i].Addresses, &out[i].Senders, &out[i].Deployers)
		}
		return rows.Scan(dst...)
	}, args...)
	return out, err
}

func (s *sqlStore) MetricRollupSums(ctx context.Context, key string, windows [][]RollupRange) (_ []chainmetrics.Rollup, err error) {
	defer derrors.Wrap(&err, "store.MetricRollupSums(%s, %d windows)", key, len(windows))
	out := make([]chainmetrics.Rollup, len(windows))
	var (
		arms []string
		args []any
	)
	for w, ranges := range windows {
		for _, r := range ranges {
			if r.From > r.To {
				continue
			}
			arms = append(arms, fmt.Sprintf("SELECT %d AS w, blocks, txs, gas_used, gas_price_sum, gas_price_max, fees, max_tps, max_gps, contracts, cum_deployers"+
				" FROM metric_rollups WHERE chain_key = ? AND period = ? AND start BETWEEN ? AND ?", w))
			args = append(args, key, string(r.Period), r.From, r.To)
		}
	}
	if len(arms) == 0 {
		return out, nil
	}
	// Each arm is a range of the primary key. The sums are cast back: on
	// PostgreSQL a BIGINT's SUM is NUMERIC. A few texts (one per number of
	// arms a window has): prepared once each.
	q := `SELECT w, CAST(SUM(blocks) AS BIGINT), CAST(SUM(txs) AS BIGINT), CAST(SUM(gas_used) AS BIGINT),
		SUM(gas_price_sum), MAX(gas_price_max), SUM(fees), MAX(max_tps), MAX(max_gps), CAST(SUM(contracts) AS BIGINT),
		MAX(cum_deployers) FROM (` + strings.Join(arms, " UNION ALL ") + `) AS a GROUP BY w`
	err = s.db.RunPrepared(ctx, q, func(rows *sql.Rows) error {
		var (
			w int
			x chainmetrics.Rollup
		)
		if err := rows.Scan(&w, &x.Blocks, &x.Txs, &x.GasUsed, &x.GasPriceSum, &x.GasPrice, &x.Fees, &x.MaxTPS, &x.MaxGPS,
			&x.Contracts, &x.CumDeployers); err != nil {
			return err
		}
		if w < 0 || w >= len(out) {
			return fmt.Errorf("sum of window %d", w)
		}
		out[w] = x
		return nil
	}, args...)
	return out, err
}
