package store

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derive/utxoset"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/xchain"
)

// dumpTables renders every row of tables, every column (dumpRows), for
// comparisons between stores of one backend.
func dumpTables(t *testing.T, s *sqlStore, tables ...string) string {
	t.Helper()
	var b strings.Builder
	for _, table := range tables {
		fmt.Fprintf(&b, "%s:\n%s\n", table, dumpRows(t, s, table))
	}
	return b.String()
}

var (
	pUTXOTablesDumped = []string{"p_utxos", "p_utxo_addresses", "address_utxos", "address_balances"}
	xUTXOTablesDumped = []string{"x_utxos", "x_utxo_addresses", "address_utxos", "address_balances"}
)

// TestPUTXOsSpentInBatch checks that a batch whose txs spend outputs of
// its own earlier txs (the scenario's base tx change, the delegator's
// returned stake and change, the genesis allocation) stores the same
// rows, every column, page keys and list rows included, as the same
// blocks applied one at a time; that re-applying, whole or in batches
// that cut between an output and its spend, changes nothing; and that
// the spent UTXOs' owners reach the other appliers (spentOwners) alike.
func TestPUTXOsSpentInBatch(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		sc := newUTXOScenario(t)
		bs := sc.blocks

		one := openStore(t, dsn)
		for i := range bs {
			mustApply(t, one, bs[i:i+1])
		}
		want := dumpTables(t, one, pUTXOTablesDumped...)

		whole := openStore(t, dbtestFresh(t, dsn))
		mustApply(t, whole, bs)
		if got := dumpTables(t, whole, pUTXOTablesDumped...); got != want {
			t.Errorf("one batch:\n%s\none block at a time:\n%s", got, want)
		}

		// Batches that end between an output and its spend (the base tx's
		// change, spent by the delegator; the delegator's change, spent by
		// the aborted proposal), then the whole again.
		cut := openStore(t, dbtestFresh(t, dsn))
		for _, b := range [][]*pchain.Block{bs[:2], bs[1:4], bs[2:], bs} {
			mustApply(t, cut, b)
		}
		if got := dumpTables(t, cut, pUTXOTablesDumped...); got != want {
			t.Errorf("overlapping batches:\n%s\none block at a time:\n%s", got, want)
		}

		mustApply(t, one, bs)
		for i := range bs {
			mustApply(t, whole, bs[i:i+1])
		}
		for name, s := range map[string]*sqlStore{"one at a time": one, "whole": whole} {
			if got := dumpTables(t, s, pUTXOTablesDumped...); got != want {
				t.Errorf("%s, re-applied:\n%s\nwant:\n%s", name, got, want)
			}
		}

		// The owners of the UTXOs spent, as the UTXO applier hands them on.
		ownersOne := spentOwnersApplying(t, openStore(t, dbtestFresh(t, dsn)), bs, 1)
		ownersWhole := spentOwnersApplying(t, openStore(t, dbtestFresh(t, dsn)), bs, len(bs))
		if len(ownersWhole[internal.PChain]) < 4 {
			t.Errorf("spent owners of one batch: %v, want the 4 UTXOs spent or more", ownersWhole)
		}
		if !reflect.DeepEqual(ownersWhole, ownersOne) {
			t.Errorf("spent owners of one batch:\n%v\none block at a time:\n%v", ownersWhole, ownersOne)
		}
	})
}

// spentOwnersApplying applies the P-chain UTXO changes of bs in batches of
// n blocks, each with its own spentOwners, and returns their union, the
// addresses of each UTXO sorted.
func spentOwnersApplying(t *testing.T, s *sqlStore, bs []*pchain.Block, n int) spentOwners {
	t.Helper()
	ctx := context.Background()
	all := spentOwners{}
	for start := 0; start < len(bs); start += n {
		batch, err := pchain.Batch(bs[start:min(len(bs), start+n)])
		if err != nil {
			t.Fatal(err)
		}
		var b *batchTx
		err = s.db.Transact(ctx, func(tx *database.DB) error {
			b = newBatchTx(tx, true)
			return b.run(ctx, func() error { return utxoset.P(ctx, &PTx{b}, batch.Blocks) })
		})
		if err != nil {
			t.Fatal(err)
		}
		for chain, m := range b.spent {
			for id, addrs := range m {
				for _, a := range addrs {
					all.add(chain, id, a)
				}
			}
		}
	}
	for _, m := range all {
		for _, addrs := range m {
			slices.SortFunc(addrs, bytes.Compare)
		}
	}
	return all
}

// TestXUTXOsSpentInBatch is TestPUTXOsSpentInBatch's comparison on the
// X-chain: the base tx spends a genesis UTXO of block 0, the asset
// creation the base tx's change.
func TestXUTXOsSpentInBatch(t *testing.T) {
	sc := newXLife(t)
	bs := sc.blocks
	dbtest.Run(t, func(t *testing.T, dsn string) {
		apply := func(s *sqlStore, batches ...[]*xchain.Block) {
			t.Helper()
			for _, b := range batches {
				if err := s.ApplyXBlocks(context.Background(), xchain.BlocksData(b), deriveX); err != nil {
					t.Fatal(err)
				}
			}
		}
		open := func() *sqlStore {
			s := openStore(t, dbtestFresh(t, dsn))
			putXNetwork(t, s, sc.xChainID)
			return s
		}
		one := open()
		apply(one, bs[:1], bs[1:2], bs[2:])
		want := dumpTables(t, one, xUTXOTablesDumped...)
		for name, batches := range map[string][][]*xchain.Block{
			"whole":                {bs},
			"whole, then again":    {bs, bs, bs[:1], bs[1:2], bs[2:]},
			"overlapping batches":  {bs[:2], bs[1:]},
			"one at a time, again": {bs[:1], bs[1:2], bs[2:], bs},
		} {
			s := open()
			apply(s, batches...)
			if got := dumpTables(t, s, xUTXOTablesDumped...); got != want {
				t.Errorf("%s:\n%s\none block at a time:\n%s", name, got, want)
			}
		}
	})
}
