// Package utxobench builds, for the UTXO-list and reward benchmarks, a
// store holding millions of P-chain UTXOs over a million addresses, some
// of them staking rewards, written straight into the tables (bulk inserts,
// as the appliers would leave them) rather than through blocks. A built
// store is kept between runs: a SQLite file in the user's cache directory
// and a PostgreSQL database, named after the size, the generator's version
// and the schema, so that any change builds a new one.
package utxobench

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// version changes whenever the generated rows change.
const version = 2

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
)

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
	addresses int
}

// Normal returns the i-th of the addresses drawn at random (i >= 0).
func (d *Dataset) Normal(i int) ids.ShortID { return address(1 + Mediums + i%(d.addresses-1-Mediums)) }

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
	n := DefaultUTXOs
	if v := os.Getenv("AVAINDEX_BENCH_UTXOS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 100_000 {
			tb.Fatalf("AVAINDEX_BENCH_UTXOS=%q: want a number of at least 100000", v)
		}
	}
	d := &Dataset{Network: network(), UTXOs: n, addresses: max(n/10, 1000), Heavy: address(0), HeavyNode: nodeID(0)}
	for i := 1; i <= Mediums; i++ {
		d.Medium = append(d.Medium, address(i))
	}
	schema, err := schemaHash()
	if err != nil {
		tb.Fatal(err)
	}
	name := fmt.Sprintf("avaindex_bench_utxos_v%d_%d_%s", version, n, schema)
	switch backend {
	case "sqlite":
		dir := os.Getenv("AVAINDEX_BENCH_CACHE")
		if dir == "" {
			base, err := os.UserCacheDir()
			if err != nil {
				tb.Fatal(err)
			}
			dir = filepath.Join(base, "avaindex", "bench")
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		d.DSN = "sqlite:" + filepath.Join(dir, name+".db")
	case "postgres":
		d.DSN = postgresDatabase(tb, name)
	default:
		tb.Fatalf("no backend %q", backend)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, d.DSN)
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	if v, ok, err := st.Setting(ctx, "bench:complete"); err != nil {
		tb.Fatal(err)
	} else if ok && string(v) == name {
		return d
	}
	db, err := database.Open(ctx, d.DSN)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	tb.Logf("building the %s benchmark store %s (%d UTXOs); it is kept for later runs", backend, name, n)
	if err := d.build(ctx, tb, db); err != nil {
		tb.Fatal(err)
	}
	if err := st.PutSettingIfAbsent(ctx, "bench:complete", []byte(name)); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("built in %s", time.Since(start).Round(time.Second))
	return d
}

// schemaHash names the migrations the store was built with.
func schemaHash() (string, error) {
	ms, err := database.ReadMigrations(store.Migrations())
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, m := range ms {
		h.Write([]byte(m.SQL))
	}
	return hex.EncodeToString(h.Sum(nil))[:8], nil
}

// postgresDatabase returns the DSN of database name on the test server,
// creating it when missing.
func postgresDatabase(tb testing.TB, name string) string {
	tb.Helper()
	admin := dbtest.PostgresURL()
	db, err := sql.Open("pgx", admin)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		tb.Skipf("SKIP: PostgreSQL not reachable at %s: %v", admin, err)
	}
	var exists bool
	if err := db.QueryRow("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		tb.Fatal(err)
	}
	if !exists {
		if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
			tb.Fatal(err)
		}
	}
	u, err := url.Parse(admin)
	if err != nil {
		tb.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// chunk is how many UTXOs one transaction writes.
const chunk = 50_000

// build writes the data set. UTXO i is output i%2 of tx i/2, created at
// height i/20 at one block a second; 30% are spent; 1% have a second
// owner (half of them 2-of-2); a tenth are staking rewards (half of the
// heavy address's), each of its own staker, paid for a random node, or
// for HeavyNode for 95% of the heavy address's.
func (d *Dataset) build(ctx context.Context, tb testing.TB, db *database.DB) error {
	rng := rand.New(rand.NewPCG(version, uint64(d.UTXOs)))
	avaxID := d.Network.AVAXAssetID
	const t0 = 1_700_000_000
	for base := 0; base < d.UTXOs; base += chunk {
		var utxoRows, addrRows, listRows, stakerRows, rewardRows, ownerRows [][]any
		for i := base; i < min(d.UTXOs, base+chunk); i++ {
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
			utxoRows = append(utxoRows, []any{id[:], txID[:], int64(index), kind, nil, avaxID[:], int64(amount), int64(0),
				int64(threshold), nil, b, createdTx[:], height, int64(i % 20), created, false, nil, height,
				consumedTx, consumedHeight, consumedIdx, consumedTime})
			for _, a := range owners {
				addrRows = append(addrRows, []any{a[:], id[:]})
				listRows = append(listRows, []any{id[:], "P", a[:], "P", created, int64(amount ^ 1<<63), avaxID[:],
					int64(threshold), spent})
			}
			if reward {
				node := nodeID(1 + rng.IntN(Nodes-1))
				if owner == d.Heavy && rng.IntN(20) != 0 {
					node = d.HeavyNode
				}
				end := created - 1
				start := end - 14*24*3600
				stakerRows = append(stakerRows, []any{txID[:], "AddPermissionlessValidatorTx", "validator", int64(0),
					constants.PrimaryNetworkID[:], node[:], int64(2_000 * 1e9), start, start, end, int64(20_000), nil, nil,
					height - 20_000, int64(0), createdTx[:], height, int64(1), int64(amount)})
				rewardRows = append(rewardRows, []any{id[:], txID[:], node[:], end})
				for _, a := range owners {
					ownerRows = append(ownerRows, []any{a[:], end, id[:]})
				}
			}
		}
		err := db.Transact(ctx, func(tx *database.DB) error {
			for _, t := range []struct {
				table string
				cols  []string
				rows  [][]any
			}{
				{"p_utxos", []string{"id", "tx_id", "output_index", "kind", "peer_chain_id", "asset_id", "amount", "locktime",
					"threshold", "stakeable_locktime", "bytes", "created_tx_id", "created_height", "created_idx", "created_time",
					"staked", "released_tx_id", "spendable_height", "consumed_tx_id", "consumed_height", "consumed_idx",
					"consumed_time"}, utxoRows},
				{"p_utxo_addresses", []string{"address", "utxo_id"}, addrRows},
				{"address_utxos", []string{"utxo_id", "chain", "address", "origin", "created_time", "amount_key", "asset_id",
					"threshold", "spent"}, listRows},
				{"p_stakers", []string{"tx_id", "tx_type", "kind", "priority", "subnet_id", "node_id", "weight", "start_time",
					"tx_start_time", "end_time", "delegation_shares", "bls_public_key", "bls_pop", "added_height", "added_idx",
					"removed_tx_id", "removed_height", "reward_committed", "potential_reward"}, stakerRows},
				{"p_historical_rewards", []string{"utxo_id", "staker_tx_id", "node_id", "end_time"}, rewardRows},
				{"p_historical_reward_owners", []string{"address", "end_time", "utxo_id"}, ownerRows},
			} {
				if _, err := tx.BulkInsert(ctx, t.table, t.cols, t.rows, "ON CONFLICT DO NOTHING"); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if done := base + chunk; done%(20*chunk) == 0 {
			tb.Logf("%d UTXOs written", done)
		}
	}
	// The statistics and visibility map autovacuum keeps on a live
	// PostgreSQL; SQLite keeps none unless asked, and avaindex does not.
	if db.Dialect() == database.Postgres {
		for _, table := range []string{"p_utxos", "p_utxo_addresses", "address_utxos", "p_stakers", "p_historical_rewards", "p_historical_reward_owners"} {
			if _, err := db.Exec(ctx, "VACUUM ANALYZE "+table); err != nil {
				return err
			}
		}
	}
	return nil
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
