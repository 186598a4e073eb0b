// Package utxobench builds, for the UTXO-list, reward and active-staker
// benchmarks, a store holding millions of P-chain UTXOs over a million
// addresses, some of them staking rewards, and tens of thousands of
// current stakers, written straight into the tables (bulk inserts, as the
// appliers would leave them) rather than through blocks. A built
// store is kept between runs: a SQLite file in the user's cache directory
// and a PostgreSQL database, named after the size, the generator's version
// and the schema, so that any change builds a new one.
package utxobench

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/testing/benchstore"
)

// version changes whenever the generated rows change.
const version = 5

// Shape of the data set.
const (
	// DefaultUTXOs and Addresses: AVAINDEX_BENCH_UTXOS overrides the
	// UTXOs (e.g. 200000 for a quick run), the addresses scale with them.
	DefaultUTXOs = 10_000_000
	// HeavyShare of the UTXOs belong to the heavy address, MediumShare to
	// each of the nine medium ones; the rest to addresses drawn at random.
	HeavyShare  = 0.012
	MediumShare = 0.001
	// Mediums is the number of medium addresses.
	Mediums = 9
	// Nodes is the number of validator nodes rewards are paid for.
	Nodes = 2000
	// StakersPer is how many UTXOs there are per current staker (62,500
	// stakers at the default size); HeavyStakerShare of them have the
	// heavy address among their reward owners, PendingShare have not
	// started yet.
	StakersPer       = 160
	HeavyStakerShare = 0.05
	PendingShare     = 0.02
)

// sum is an address_balances row in the making: the unspent UTXOs of one
// owner and kind (all AVAX, unlocked).
type sum struct{ lo, hi, n int64 }

type sumKey struct {
	owner ids.ShortID
	kind  string
}

// Dataset is a built store and what the benchmarks query in it.
type Dataset struct {
	DSN     string
	Network *internal.Network
	UTXOs   int
	// Heavy holds HeavyShare of the UTXOs, half of them rewards, most paid
	// for HeavyNode; Medium hold MediumShare each.
	Heavy     ids.ShortID
	Medium    []ids.ShortID
	HeavyNode ids.NodeID
	// Stakers is the number of current (and pending) stakers; the heavy
	// address is a reward owner of HeavyStakerShare of them, and of the
	// removed staker of each of its reward UTXOs.
	Stakers   int
	addresses int
}

// Normal returns the i-th of the addresses drawn at random (i >= 0).
func (d *Dataset) Normal(i int) ids.ShortID { return address(1 + Mediums + i%d.Normals()) }

// Normals is the number of addresses drawn at random: Normal(i) and
// Normal(i+Normals()) are the same.
func (d *Dataset) Normals() int { return d.addresses - 1 - Mediums }

func address(k int) ids.ShortID {
	h := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("address"), uint64(k)))
	var a ids.ShortID
	copy(a[:], h[:])
	return a
}

func hashID(parts ...any) ids.ID {
	return ids.ID(sha256.Sum256(fmt.Append(nil, parts...)))
}

func nodeID(k int) ids.NodeID {
	var n ids.NodeID
	h := hashID("node", k)
	copy(n[:], h[:])
	return n
}

// network is the data set's network: the local network's ids.
func network() *internal.Network {
	return &internal.Network{ID: constants.LocalID, Name: constants.LocalName, HRP: constants.LocalHRP,
		PChainID: constants.PlatformChainID, XChainID: hashID("x-chain"), CChainID: hashID("c-chain"),
		AVAXAssetID: hashID("avax")}
}

// Open returns the data set on backend ("sqlite" or "postgres"), building
// it when no run built it before.
func Open(tb testing.TB, backend string) *Dataset {
	tb.Helper()
	n := benchstore.Size(tb, "AVAINDEX_BENCH_UTXOS", DefaultUTXOs)
	d := &Dataset{Network: network(), UTXOs: n, addresses: max(n/10, 1000), Heavy: address(0), HeavyNode: nodeID(0),
		Stakers: n / StakersPer}
	for i := 1; i <= Mediums; i++ {
		d.Medium = append(d.Medium, address(i))
	}
	d.DSN = benchstore.Open(tb, backend, "utxos", version, n, func(ctx context.Context, db *database.DB) error {
		return d.build(ctx, tb, db)
	})
	return d
}

// chunk is how many UTXOs one transaction writes.
const chunk = 200_000

// tables are the tables build writes, in the order of their rows.
var tables = []struct {
	name string
	cols []string
}{
	{"p_utxos", []string{"id", "tx_id", "output_index", "kind", "peer_chain_id", "asset_id", "amount", "locktime",
		"threshold", "stakeable_locktime", "bytes", "created_tx_id", "created_height", "created_idx", "created_time",
		"staked", "released_tx_id", "spendable_height", "consumed_tx_id", "consumed_height", "consumed_idx",
		"consumed_time"}},
	{"p_utxo_addresses", []string{"address", "utxo_id", "page_key"}},
	{"address_utxos", []string{"utxo_id", "chain", "address", "origin", "created_time", "amount_key", "asset_id",
		"threshold", "spent", "kind", "locktime", "stakeable_locktime", "summed"}},
	{"p_stakers", []string{"tx_id", "tx_type", "kind", "priority", "subnet_id", "node_id", "weight", "start_time",
		"tx_start_time", "end_time", "delegation_shares", "bls_public_key", "bls_pop", "added_height", "added_idx",
		"removed_tx_id", "removed_height", "reward_committed", "potential_reward"}},
	{"p_staker_owners", []string{"tx_id", "role", "locktime", "threshold", "addresses"}},
	{"p_staker_addresses", []string{"tx_id", "address", "start_time", "tx_type", "removed"}},
	{"p_historical_rewards", []string{"utxo_id", "staker_tx_id", "node_id", "end_time"}},
	{"p_historical_reward_owners", []string{"address", "end_time", "utxo_id"}},
	{"address_balances", []string{"chain", "address", "origin", "asset_id", "kind", "locktime", "stakeable_locktime",
		"amount_lo", "amount_hi", "utxos"}},
}

// rowSet holds rows of each of tables, by index.
type rowSet [][][]any

func (r rowSet) add(table int, row ...any) { r[table] = append(r[table], row) }

const (
	tUTXOs = iota
	tUTXOAddresses
	tAddressUTXOs
	tStakers
	tStakerOwners
	tStakerAddresses
	tRewards
	tRewardOwners
	tBalances
)

// t0 is the creation time of the first UTXO.
const t0 = 1_700_000_000

// build writes the data set. UTXO i is output i%2 of tx i/2, created at
// height i/20 at one block a second; 30% are spent; 1% have a second
// owner (half of them 2-of-2); a tenth are staking rewards (half of the
// heavy address's), each of its own removed staker, paid for a random
// node, or for HeavyNode for 95% of the heavy address's. Then come the
// current stakers (stakers) and the last block, whose time they are
// current at.
//
// The tables are emptied first (a build that failed half way starts
// again) and loaded without their secondary indexes, built at the end.
func (d *Dataset) build(ctx context.Context, tb testing.TB, db *database.DB) error {
	for _, t := range append(tables[:len(tables):len(tables)], struct {
		name string
		cols []string
	}{name: "p_blocks"}) {
		if _, err := db.Exec(ctx, "DELETE FROM "+t.name); err != nil {
			return err
		}
	}
	var names []string
	for _, t := range tables {
		names = append(names, t.name)
	}
	endLoad, err := db.BeginBulkLoad(ctx, names...)
	if err != nil {
		return err
	}
	write := func(rows rowSet) error {
		return db.Transact(ctx, func(tx *database.DB) error {
			for i, t := range tables {
				if err := tx.Append(ctx, t.name, t.cols, rows[i], ""); err != nil {
					return err
				}
			}
			return nil
		})
	}
	rng := rand.New(rand.NewPCG(version, uint64(d.UTXOs)))
	avaxID := d.Network.AVAXAssetID
	sums := map[sumKey]*sum{}
	for base := 0; base < d.UTXOs; base += chunk {
		rows := make(rowSet, len(tables))
		for i := base; i < min(d.UTXOs, base+chunk); i++ {
			if err := d.utxo(rng, rows, sums, i, avaxID); err != nil {
				return err
			}
		}
		if err := write(rows); err != nil {
			return err
		}
		tb.Logf("%d UTXOs written", min(d.UTXOs, base+chunk))
	}
	rows := make(rowSet, len(tables))
	last := d.stakers(rng, rows)
	for k, x := range sums {
		rows.add(tBalances, "P", k.owner[:], "P", avaxID[:], k.kind, int64(0), int64(0), x.lo, x.hi, x.n)
	}
	if err := write(rows); err != nil {
		return err
	}
	blockID, parentID := hashID("block"), hashID("parent")
	if err := db.Append(ctx, "p_blocks", []string{"height", "id", "parent_id", "type", "timestamp", "bytes"},
		[][]any{{int64(d.UTXOs / 20), blockID[:], parentID[:], "BanffStandardBlock", last, []byte{0}}},
		"ON CONFLICT DO NOTHING"); err != nil {
		return err
	}
	// The sums are written above, as the appliers keep them: their
	// backfill has nothing left to do.
	if _, err := db.Exec(ctx, "DELETE FROM settings WHERE key = 'backfill:address_balances'"); err != nil {
		return err
	}
	tb.Logf("%d stakers written; building the indexes", d.Stakers)
	if err := endLoad(ctx); err != nil {
		return err
	}
	// The statistics and visibility map autovacuum keeps on a live
	// PostgreSQL; SQLite keeps none unless asked, and avaindex does not.
	if db.Dialect() == database.Postgres {
		for _, t := range append(names, "p_blocks") {
			if _, err := db.Exec(ctx, "VACUUM ANALYZE "+t); err != nil {
				return err
			}
		}
	}
	return nil
}

// utxo adds the rows of UTXO i, and counts it in sums when the appliers
// would (one owner, unspent).
func (d *Dataset) utxo(rng *rand.Rand, rows rowSet, sums map[sumKey]*sum, i int, avaxID ids.ID) error {
	owner := d.owner(rng)
	owners := []ids.ShortID{owner}
	threshold := uint32(1)
	if rng.IntN(100) == 0 {
		other := d.Normal(rng.IntN(d.addresses))
		if other != owner {
			owners = append(owners, other)
			if string(other[:]) < string(owner[:]) {
				owners[0], owners[1] = other, owner
			}
			threshold = uint32(1 + rng.IntN(2))
		}
	}
	// Amounts spread over ten orders of magnitude.
	amount := uint64(1000 * math.Pow(10, 10*rng.Float64()))
	created := int64(t0 + i/10)
	height := int64(i / 20)
	txID := hashID("tx", i/2)
	index := uint32(i % 2)
	kind := "regular"
	reward := rng.IntN(10) == 0
	if owner == d.Heavy {
		reward = rng.IntN(2) == 0
	}
	createdTx := txID
	if reward {
		kind, txID, index = "reward", hashID("staker", i), 2
		createdTx = hashID("reward tx", i)
	}
	u := &avax.UTXO{UTXOID: avax.UTXOID{TxID: txID, OutputIndex: index}, Asset: avax.Asset{ID: avaxID},
		Out: &secp256k1fx.TransferOutput{Amt: amount, OutputOwners: secp256k1fx.OutputOwners{Threshold: threshold, Addrs: owners}}}
	b, err := txs.Codec.Marshal(txs.CodecVersion, u)
	if err != nil {
		return err
	}
	id := u.InputID()
	var consumedTx, consumedHeight, consumedIdx, consumedTime any
	spent := 0
	if rng.IntN(10) < 3 {
		spent = 1
		ct := hashID("spend", i)
		consumedTx, consumedHeight, consumedIdx, consumedTime = ct[:], height+1000, int64(i%7), created+100
	}
	rows.add(tUTXOs, id[:], txID[:], int64(index), kind, nil, avaxID[:], int64(amount), int64(0),
		int64(threshold), nil, b, createdTx[:], height, int64(i%20), created, false, nil, height,
		consumedTx, consumedHeight, consumedIdx, consumedTime)
	// The unspent ones' place in platform.getUTXOs' pages (migration 0041).
	var pageKey any
	if spent == 0 {
		k := binary.BigEndian.AppendUint64(nil, uint64(height))
		k = binary.BigEndian.AppendUint32(k, uint32(i%20+1))
		k = append(k, txID[:]...)
		pageKey = binary.BigEndian.AppendUint32(k, index)
	}
	summed := 0
	if len(owners) == 1 {
		summed = 1
		if spent == 0 {
			k := sumKey{owner, kind}
			x := sums[k]
			if x == nil {
				x = &sum{}
				sums[k] = x
			}
			x.lo, x.hi, x.n = x.lo+int64(amount&0xFFFFFFFF), x.hi+int64(amount>>32), x.n+1
		}
	}
	for _, a := range owners {
		rows.add(tUTXOAddresses, a[:], id[:], pageKey)
		rows.add(tAddressUTXOs, id[:], "P", a[:], "P", created, int64(amount^1<<63), avaxID[:], int64(threshold), spent,
			kind, int64(0), int64(0), summed)
	}
	if !reward {
		return nil
	}
	node := nodeID(1 + rng.IntN(Nodes-1))
	if owner == d.Heavy && rng.IntN(20) != 0 {
		node = d.HeavyNode
	}
	end := created - 1
	start := end - 14*24*3600
	const txType = "AddPermissionlessValidatorTx"
	rows.add(tStakers, txID[:], txType, "validator", int64(0), constants.PrimaryNetworkID[:], node[:], int64(2_000*1e9),
		start, start, end, int64(20_000), nil, nil, height-20_000, int64(0), createdTx[:], height, int64(1), int64(amount))
	rows.add(tStakerOwners, txID[:], "validation_reward", int64(0), int64(threshold), packed(owners))
	for _, a := range owners {
		rows.add(tStakerAddresses, txID[:], a[:], start, txType, 1)
	}
	rows.add(tRewards, id[:], txID[:], node[:], end)
	for _, a := range owners {
		rows.add(tRewardOwners, a[:], end, id[:])
	}
	return nil
}

// stakers adds the rows of the current stakers and returns the time they
// are current at: the last UTXO's. 80% are delegators with a reward owner,
// the others validators with a validation and a delegation reward owner
// (the same address for half of them); they started in the 14 days before
// that time, PendingShare of them start in the day after it.
func (d *Dataset) stakers(rng *rand.Rand, rows rowSet) int64 {
	now := int64(t0 + (d.UTXOs-1)/10)
	for k := range d.Stakers {
		txID := hashID("current staker", k)
		node := nodeID(1 + rng.IntN(Nodes-1))
		start := now - rng.Int64N(14*24*3600)
		if rng.Float64() < PendingShare {
			start = now + 1 + rng.Int64N(24*3600)
		}
		end := start + 14*24*3600
		owner := func() ids.ShortID {
			if rng.Float64() < HeavyStakerShare {
				return d.Heavy
			}
			return d.Normal(rng.IntN(d.addresses))
		}
		txType, kind, shares := "AddPermissionlessDelegatorTx", "delegator", int64(0)
		owners := map[string]ids.ShortID{"reward": owner()}
		if rng.IntN(5) == 0 {
			txType, kind, shares = "AddPermissionlessValidatorTx", "validator", 20_000
			a := owner()
			owners = map[string]ids.ShortID{"validation_reward": a, "delegation_reward": a}
			if rng.IntN(2) == 0 {
				owners["delegation_reward"] = d.Normal(rng.IntN(d.addresses))
			}
		}
		rows.add(tStakers, txID[:], txType, kind, int64(0), constants.PrimaryNetworkID[:], node[:], int64(25*1e9),
			start, start, end, shares, nil, nil, int64(d.UTXOs/20), int64(k%100), nil, nil, nil, int64(1e9))
		seen := map[ids.ShortID]bool{}
		for _, role := range []string{"reward", "validation_reward", "delegation_reward"} {
			a, ok := owners[role]
			if !ok {
				continue
			}
			rows.add(tStakerOwners, txID[:], role, int64(0), int64(1), packed([]ids.ShortID{a}))
			if !seen[a] {
				seen[a] = true
				rows.add(tStakerAddresses, txID[:], a[:], start, txType, 0)
			}
		}
	}
	return now
}

func packed(addrs []ids.ShortID) []byte {
	var b []byte
	for _, a := range addrs {
		b = append(b, a[:]...)
	}
	return b
}

// owner draws the owner of a UTXO.
func (d *Dataset) owner(rng *rand.Rand) ids.ShortID {
	r := rng.Float64()
	switch {
	case r < HeavyShare:
		return d.Heavy
	case r < HeavyShare+Mediums*MediumShare:
		return d.Medium[int((r-HeavyShare)/MediumShare)%Mediums]
	}
	return d.Normal(rng.IntN(d.addresses))
}
