// Package evmbench builds, for the EVM transfer-list benchmarks, a store
// holding millions of token transfers of one EVM chain, written straight
// into the tables as ApplyEVMBlocks would leave them: the transfers, each
// one's rows in the address lists, and the blocks they join. Indexes are
// built after the rows are in (sorted loads), as a bulk load should. A
// built store is kept between runs, like utxobench's: a SQLite file in the
// user's cache directory and a PostgreSQL database, named after the size,
// the generator's version and the schema.
package evmbench

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/benchstore"
)

// version changes whenever the generated rows change.
const version = 1

// Shape of the data set.
const (
	// DefaultTransfers; AVAINDEX_BENCH_TRANSFERS overrides it (e.g.
	// 500000 for a quick run), and the rest scales with it.
	DefaultTransfers = 10_000_000
	// PerBlock transfers are in each block, one every two seconds.
	PerBlock = 20
	// ChainID is the data set's EVM chain.
	ChainID = 43114
)

// Dataset is a built store and what the benchmarks query in it.
//
// Transfer i is log i%PerBlock of block i/PerBlock. Every tenth, from
// i%10 == 5, is an ERC-20 transfer of Heavy (sent on odd blocks, received
// on even ones): a tenth of the transfers, a million of ten million. Those
// with i%10 < 2 move HeavyToken (a fifth). The rest move one of a thousand
// tokens between addresses drawn from a million, a tenth of them ERC-721.
type Dataset struct {
	DSN       string
	Transfers int
	Heavy     common.Address
	// HeavyToken is an ERC-20 with a fifth of the transfers.
	HeavyToken common.Address
}

func address(kind string, k int) common.Address {
	return common.BytesToAddress(crypto.Keccak256([]byte(kind), binary.BigEndian.AppendUint64(nil, uint64(k))))
}

// Open returns the data set on backend ("sqlite" or "postgres"), building
// it when no run built it before.
func Open(tb testing.TB, backend string) *Dataset {
	tb.Helper()
	n := benchstore.Size(tb, "AVAINDEX_BENCH_TRANSFERS", DefaultTransfers)
	d := &Dataset{Transfers: n, Heavy: address("heavy", 0), HeavyToken: address("token", -1)}
	d.DSN = benchstore.Open(tb, backend, "transfers", version, n, func(ctx context.Context, db *database.DB) error {
		return d.build(ctx, tb, db)
	})
	return d
}

// chunk is how many transfers one transaction writes.
const chunk = 100_000

var (
	transferColumns = []string{"chain_id", "block_number", "log_index", "batch_index", "tx_hash", "timestamp", "token",
		"erc_type", "operator", "from_address", "to_address", "value", "token_id"}
	addressColumns = []string{"chain_id", "address", "erc_type", "block_number", "log_index", "batch_index"}
	blockColumns   = []string{"chain_id", "number", "hash", "parent_hash", "timestamp", "miner", "gas_limit", "gas_used",
		"base_fee", "size", "tx_count", "traced"}
)

func (d *Dataset) build(ctx context.Context, tb testing.TB, db *database.DB) error {
	pg := db.Dialect() == database.Postgres
	// The token index and the address lists are built after the load,
	// from sorted rows: the lists' rows go to a staging table first.
	pre := []string{
		"DROP INDEX IF EXISTS evm_transfers_token",
		"CREATE TABLE bench_address_transfers (chain_id BIGINT, address BYTEA, erc_type INTEGER, block_number BIGINT, log_index INTEGER, batch_index INTEGER)",
	}
	for _, q := range pre {
		if _, err := db.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	rng := rand.New(rand.NewPCG(version, uint64(d.Transfers)))
	const t0 = 1_700_000_000
	zero := common.Address{}
	for base := 0; base < d.Transfers; base += chunk {
		var transfers, addrs, blocks [][]any
		for i := base; i < min(d.Transfers, base+chunk); i++ {
			block, log := int64(i/PerBlock), int64(i%PerBlock)
			if log == 0 {
				h := crypto.Keccak256(binary.BigEndian.AppendUint64([]byte("block"), uint64(block)))
				p := crypto.Keccak256(binary.BigEndian.AppendUint64([]byte("block"), uint64(block-1)))
				blocks = append(blocks, []any{int64(ChainID), block, h, p, t0 + 2*block, zero[:], int64(15_000_000),
					int64(8_000_000), big.NewInt(25e9).Bytes(), int64(30_000), PerBlock / 2, 1})
			}
			typ := 20
			var from, to, token common.Address
			var tokenID any
			switch r := i % 10; {
			case r == 5:
				token = address("token", rng.IntN(1000))
				from, to = d.Heavy, address("addr", rng.IntN(1_000_000))
				if block%2 == 0 {
					from, to = to, from
				}
			case r < 2:
				token = d.HeavyToken
				from, to = address("addr", rng.IntN(1_000_000)), address("addr", rng.IntN(1_000_000))
			default:
				t := rng.IntN(1000)
				token = address("token", t)
				from, to = address("addr", rng.IntN(1_000_000)), address("addr", rng.IntN(1_000_000))
				if t%10 == 0 {
					typ, tokenID = 721, big.NewInt(int64(i)).Bytes()
				}
			}
			value := big.NewInt(int64(1 + rng.IntN(1e9))).Bytes()
			if typ == 721 {
				value = []byte{1}
			}
			txHash := crypto.Keccak256(binary.BigEndian.AppendUint64([]byte("tx"), uint64(i/2)))
			transfers = append(transfers, []any{int64(ChainID), block, log, 0, txHash, t0 + 2*block, token[:], typ,
				zero[:], from[:], to[:], value, tokenID})
			addrs = append(addrs, []any{int64(ChainID), from[:], typ, block, log, 0})
			if to != from {
				addrs = append(addrs, []any{int64(ChainID), to[:], typ, block, log, 0})
			}
		}
		err := db.Transact(ctx, func(tx *database.DB) error {
			if err := tx.Append(ctx, "evm_blocks", blockColumns, blocks, ""); err != nil {
				return err
			}
			if err := tx.Append(ctx, "evm_transfers", transferColumns, transfers, ""); err != nil {
				return err
			}
			return tx.Append(ctx, "bench_address_transfers", addressColumns, addrs, "")
		})
		if err != nil {
			return err
		}
		if done := base + chunk; done%(10*chunk) == 0 {
			tb.Logf("%d transfers written", done)
		}
	}
	tb.Logf("building the indexes")
	last := int64((d.Transfers - 1) / PerBlock)
	post := []string{
		"CREATE INDEX evm_transfers_token ON evm_transfers (chain_id, token, block_number, log_index, batch_index)",
	}
	if pg {
		// A primary key built once from the sorted rows.
		post = append(post, "ALTER TABLE evm_address_transfers DROP CONSTRAINT evm_address_transfers_pkey",
			"INSERT INTO evm_address_transfers SELECT * FROM bench_address_transfers",
			"ALTER TABLE evm_address_transfers ADD PRIMARY KEY (chain_id, address, erc_type, block_number, log_index, batch_index)")
	} else {
		// Inserted in key order, SQLite's index pages fill one after another.
		post = append(post, "INSERT INTO evm_address_transfers SELECT * FROM bench_address_transfers ORDER BY chain_id, address, erc_type, block_number, log_index, batch_index")
	}
	post = append(post, "DROP TABLE bench_address_transfers",
		fmt.Sprintf("INSERT INTO evm_chains (chain_id, balances) VALUES (%d, 1)", ChainID),
		fmt.Sprintf("INSERT INTO cursors (chain, height, block_id) VALUES ('%s', %d, NULL)", store.EVMCursor(ChainID), last))
	if pg {
		// The statistics and visibility map autovacuum keeps on a live
		// PostgreSQL (index-only scans need the latter).
		post = append(post, "VACUUM ANALYZE evm_transfers", "VACUUM ANALYZE evm_address_transfers", "VACUUM ANALYZE evm_blocks")
	}
	for _, q := range post {
		start := time.Now()
		if _, err := db.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		tb.Logf("%s: %s", q, time.Since(start).Round(time.Second))
	}
	return nil
}
