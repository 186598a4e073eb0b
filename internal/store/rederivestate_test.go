package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/xstate"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/xchain"
)

// dumpRows returns the rows of table, each rendered as one line, sorted.
func dumpRows(t *testing.T, s *sqlStore, table string) string {
	t.Helper()
	var lines []string
	err := s.db.RunQuery(context.Background(), "SELECT * FROM "+table, func(rows *sql.Rows) error {
		cols, err := rows.Columns()
		if err != nil {
			return err
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		var b strings.Builder
		for i, v := range vals {
			if cols[i] == "updated_at" {
				continue
			}
			if bs, ok := v.([]byte); ok {
				v = fmt.Sprintf("%x", bs)
			}
			fmt.Fprintf(&b, "%s=%v ", cols[i], v)
		}
		lines = append(lines, b.String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestRederiveXDAG rederives a DAG-era X-chain (mainnet's genesis, two DAG
// txs from the mirrored X/tx index, a post-Cortina block spending their
// outputs): the DAG phase, then the blocks phase, each batch moving the
// one cursor, and the X-chain's derived tables end as indexed. Batches out
// of phase or order, and the indexer's applies meanwhile, are refused.
func TestRederiveXDAG(t *testing.T) {
	gb, avaxID, err := genesis.FromConfig(genesis.GetConfig(constants.MainnetID))
	if err != nil {
		t.Fatal(err)
	}
	xChain, err := genesis.VMGenesis(gb, constants.AVMID)
	if err != nil {
		t.Fatal(err)
	}
	g, ok, err := xchain.GenesisFor(xChain.ID())
	if err != nil || !ok || !g.DAG {
		t.Fatalf("mainnet X genesis: %v, %v", ok, err)
	}
	gen := g.UTXOs[0]
	holder := gen.Owners.Addrs[0]
	base := xTx(t, &txs.BaseTx{BaseTx: xBase("rd-b", []*avax.TransferableInput{xIn(gen.UTXO.TxID, gen.UTXO.OutputIndex, avaxID, gen.Amount)},
		xOut(avaxID, 5, uAddrA), xOut(avaxID, gen.Amount-6, holder)).BaseTx})
	next := xTx(t, &txs.BaseTx{BaseTx: xBase("rd-n", []*avax.TransferableInput{xIn(base.ID, 1, avaxID, gen.Amount-6)},
		xOut(avaxID, gen.Amount-7, holder)).BaseTx})
	var containers []Container
	for i, x := range []*xchain.Tx{base, next} {
		containers = append(containers, Container{Index: uint64(i), ID: x.ID, Bytes: x.Bytes,
			Timestamp: time.Unix(1_600_000_000+int64(i), 0).UTC().Format(time.RFC3339Nano)})
	}
	spend := xTx(t, &txs.BaseTx{BaseTx: xBase("rd-s", []*avax.TransferableInput{xIn(base.ID, 0, avaxID, 5)},
		xOut(avaxID, 4, uAddrB)).BaseTx})
	blocks := xBlocks(t, "rd", g, nil, []*xchain.Tx{spend})
	tables := []string{"x_utxos", "x_utxo_addresses", "x_imported_utxos", "x_early_spends", "x_dag_txs",
		"address_utxos", "metric_chains", "metric_rollups", "metric_addresses"}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		nb, _ := json.Marshal(internal.Network{ID: constants.MainnetID, XChainID: xChain.ID()})
		if err := s.PutSettingIfAbsent(ctx, NetworkSetting, nb); err != nil {
			t.Fatal(err)
		}
		// An address webhook on A, whose 5 the block spends: its event's
		// sent amount comes from the spent UTXOs' owners.
		aKey, _ := address.FormatBech32("avax", uAddrA[:])
		if err := s.CreateWebhook(ctx, Webhook{ID: "x", Owner: "o", EventType: internal.EventPlatformAddressActivity, Status: WebhookActive,
			Created: time.Unix(0, 0), Filter: WebhookFilter{Chain: "X", KeyType: "addresses", SubEvents: []string{internal.SubBalanceChange}}},
			[]string{aKey}, WebhookLimits{Webhooks: 1, Addresses: 1}); err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyContainers(ctx, XTxIndex, containers); err != nil {
			t.Fatal(err)
		}
		if n := applyXDAG(t, s, g, 10); n != 2 {
			t.Fatalf("applied %d DAG txs, want 2", n)
		}
		if err := s.ApplyXBlocks(ctx, xchain.BlocksData(blocks), deriveX); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, table := range tables {
			want[table] = dumpRows(t, s, table)
		}
		if want["x_dag_txs"] == "" || want["x_utxos"] == "" {
			t.Fatal("nothing indexed: the comparison would prove nothing")
		}
		events, err := s.WebhookEvents(ctx, "x", 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || !strings.Contains(string(events[0].Payload), `"received":"0","sent":"5"`) {
			t.Fatalf("the webhook's events: %+v; want one, A sending 5", events)
		}
		// Delivered and pruned: the rederive writes it again, the same.
		if _, err := s.db.Exec(ctx, "DELETE FROM webhook_outbox"); err != nil {
			t.Fatal(err)
		}

		if err := s.RequestRederive(ctx, internal.XChain); err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyXBlocks(ctx, xchain.BlocksData(blocks), deriveX); err == nil || !strings.Contains(err.Error(), "rederive") {
			t.Fatalf("ApplyXBlocks while a rederive is pending: %v, want a refusal", err)
		}
		r, err := s.StartRederive(ctx, internal.XChain)
		if err != nil || r.Phase != RederiveDAG || r.Next != 0 || r.Target != 1 || r.Done {
			t.Fatalf("StartRederive = %+v, %v; want the DAG phase at 0 of 1", r, err)
		}
		if got := dumpRows(t, s, "x_dag_txs") + dumpRows(t, s, "x_utxos"); got != "" {
			t.Fatalf("the start left X-chain rows: %s", got)
		}
		dag := make([]*xchain.DAGTx, len(containers))
		for i, c := range containers {
			if dag[i], err = xchain.DecodeDAGTx(c.Index, c.ID, c.Bytes, c.Timestamp, g); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.RederiveXBlocks(ctx, xchain.BlocksData(blocks), deriveX); err == nil {
			t.Fatal("RederiveXBlocks in the DAG phase succeeded")
		}
		if _, err := s.RederiveXDAGTxs(ctx, xchain.DAGTxsData(dag[1:]), xstate.ApplyDAG[*DAGTx]); err == nil {
			t.Fatal("RederiveXDAGTxs past the cursor succeeded")
		}
		if r, err = s.RederiveXDAGTxs(ctx, xchain.DAGTxsData(dag[:1]), xstate.ApplyDAG[*DAGTx]); err != nil || r.Phase != RederiveDAG || r.Next != 1 {
			t.Fatalf("first DAG batch: %+v, %v", r, err)
		}
		// A restart reads the cursor back.
		if r, err = s.StartRederive(ctx, internal.XChain); err != nil || r.Phase != RederiveDAG || r.Next != 1 {
			t.Fatalf("StartRederive under way = %+v, %v; want it left at 1", r, err)
		}
		if r, err = s.RederiveXDAGTxs(ctx, xchain.DAGTxsData(dag[1:]), xstate.ApplyDAG[*DAGTx]); err != nil || r.Phase != RederiveBlocks || r.Next != 0 || r.Target != 1 || r.Done {
			t.Fatalf("last DAG batch: %+v, %v; want the blocks phase at 0 of 1", r, err)
		}
		if r, err = s.RederiveXBlocks(ctx, xchain.BlocksData(blocks), deriveX); err != nil || !r.Done {
			t.Fatalf("blocks: %+v, %v; want done", r, err)
		}
		if p, err := s.PendingRederives(ctx); err != nil || len(p) != 0 {
			t.Fatalf("pending after the rederive: %+v, %v", p, err)
		}
		for _, table := range tables {
			if got := dumpRows(t, s, table); got != want[table] {
				t.Errorf("%s after the rederive:\n%s\nwant:\n%s", table, got, want[table])
			}
		}
		if again, err := s.WebhookEvents(ctx, "x", 10); err != nil || len(again) != 1 || !sameEvent(again[0], events[0]) {
			t.Errorf("the webhook's events after the rederive: %+v, %v; want %s", again, err, events[0].Payload)
		}
	})
}
