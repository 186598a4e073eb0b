package store

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	pgenesis "github.com/ava-labs/avalanchego/vms/platformvm/genesis"
	"github.com/ava-labs/avalanchego/vms/platformvm/stakeable"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

var (
	uAsset = ids.ID{'a', 'v', 'a', 'x'}
	uAddrA = ids.ShortID{0xa}
	uAddrB = ids.ShortID{0xb}
	uAddrC = ids.ShortID{0xc}
	uXID   = ids.ID{'x'}
)

func uOwners(addrs ...ids.ShortID) secp256k1fx.OutputOwners {
	return secp256k1fx.OutputOwners{Threshold: 1, Addrs: addrs}
}

func uOut(amount uint64, addrs ...ids.ShortID) *avax.TransferableOutput {
	return &avax.TransferableOutput{Asset: avax.Asset{ID: uAsset},
		Out: &secp256k1fx.TransferOutput{Amt: amount, OutputOwners: uOwners(addrs...)}}
}

func uIn(txID ids.ID, idx uint32, amount uint64) *avax.TransferableInput {
	return &avax.TransferableInput{UTXOID: avax.UTXOID{TxID: txID, OutputIndex: idx}, Asset: avax.Asset{ID: uAsset},
		In: &secp256k1fx.TransferInput{Amt: amount, Input: secp256k1fx.Input{SigIndices: []uint32{0}}}}
}

func uBase(ins []*avax.TransferableInput, outs ...*avax.TransferableOutput) txs.BaseTx {
	return txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: 12345, Ins: ins, Outs: outs}}
}

func uTx(t testing.TB, u txs.UnsignedTx) *txs.Tx {
	t.Helper()
	tx := &txs.Tx{Unsigned: u}
	if err := tx.Initialize(txs.Codec); err != nil {
		t.Fatal(err)
	}
	return tx
}

// utxoScenario is a small chain of real txs over a registered genesis.
type utxoScenario struct {
	blocks                                                []*pchain.Block
	genVdr, baseTx, delegator, reward, export, apricotDel *txs.Tx
	rewardUTXO                                            []byte
}

func newUTXOScenario(t testing.TB) *utxoScenario {
	t.Helper()
	sc := &utxoScenario{}
	// Genesis: two allocations (one stakeable-locked) and one validator.
	gvdr := uTx(t, &txs.AddValidatorTx{
		BaseTx:       uBase(nil),
		Validator:    txs.Validator{NodeID: ids.NodeID{1}, Start: 1, End: 4_000_000_000, Wght: 5},
		StakeOuts:    []*avax.TransferableOutput{uOut(5, uAddrC)},
		RewardsOwner: &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{uAddrC}},
	})
	if err := gvdr.Initialize(txs.GenesisCodec); err != nil {
		t.Fatal(err)
	}
	sc.genVdr = gvdr
	g := &pgenesis.Genesis{
		UTXOs: []*pgenesis.UTXO{
			{UTXO: avax.UTXO{UTXOID: avax.UTXOID{TxID: ids.Empty, OutputIndex: 0}, Asset: avax.Asset{ID: uAsset},
				Out: &secp256k1fx.TransferOutput{Amt: 1000, OutputOwners: uOwners(uAddrA)}}},
			{UTXO: avax.UTXO{UTXOID: avax.UTXOID{TxID: ids.Empty, OutputIndex: 1}, Asset: avax.Asset{ID: uAsset},
				Out: &stakeable.LockOut{Locktime: 4_000_000_000, TransferableOut: &secp256k1fx.TransferOutput{Amt: 7, OutputOwners: uOwners(uAddrA, uAddrB)}}}},
		},
		Validators:    []*txs.Tx{gvdr},
		Timestamp:     1_600_000_000,
		InitialSupply: 1012,
		Message:       "utxo test " + t.Name(),
	}
	gb, err := g.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	pchain.RegisterGenesis(gb)

	sc.baseTx = uTx(t, &txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: 12345,
		Ins:  []*avax.TransferableInput{uIn(ids.Empty, 0, 1000)},
		Outs: []*avax.TransferableOutput{uOut(100, uAddrB), uOut(890, uAddrA)}}})
	sc.delegator = uTx(t, &txs.AddPermissionlessDelegatorTx{
		BaseTx:                 uBase([]*avax.TransferableInput{uIn(sc.baseTx.ID(), 1, 890)}, uOut(580, uAddrA)),
		Validator:              txs.Validator{NodeID: ids.NodeID{2}, Start: 0, End: 1_700_000_100, Wght: 300},
		StakeOuts:              []*avax.TransferableOutput{uOut(200, uAddrA), uOut(100, uAddrB)},
		DelegationRewardsOwner: &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{uAddrB}},
	})
	sc.reward = uTx(t, &txs.RewardValidatorTx{TxID: sc.delegator.ID()})
	rewardUTXO := &avax.UTXO{UTXOID: avax.UTXOID{TxID: sc.delegator.ID(), OutputIndex: 3}, Asset: avax.Asset{ID: uAsset},
		Out: &secp256k1fx.TransferOutput{Amt: 9, OutputOwners: uOwners(uAddrB)}}
	if sc.rewardUTXO, err = txs.Codec.Marshal(txs.CodecVersion, rewardUTXO); err != nil {
		t.Fatal(err)
	}
	// Spends the returned stake (output 1 of the delegator) and the reward;
	// exports one output to X; imports one from X.
	sc.export = uTx(t, &txs.ExportTx{
		BaseTx:           uBase([]*avax.TransferableInput{uIn(sc.delegator.ID(), 2, 100), uIn(sc.delegator.ID(), 3, 9)}, uOut(50, uAddrB)),
		DestinationChain: uXID,
		ExportedOutputs:  []*avax.TransferableOutput{uOut(40, uAddrC)},
	})
	imp := uTx(t, &txs.ImportTx{
		BaseTx:         uBase(nil, uOut(30, uAddrC)),
		SourceChain:    uXID,
		ImportedInputs: []*avax.TransferableInput{uIn(ids.ID{'x', 't', 'x'}, 4, 31)},
	})
	// A pre-Banff staker proposal that is aborted: its stake comes back at
	// once.
	sc.apricotDel = uTx(t, &txs.AddDelegatorTx{
		BaseTx:                 uBase([]*avax.TransferableInput{uIn(sc.delegator.ID(), 0, 580)}, uOut(500, uAddrA)),
		Validator:              txs.Validator{NodeID: ids.NodeID{1}, Start: 0, End: 1_700_000_200, Wght: 70},
		StakeOuts:              []*avax.TransferableOutput{uOut(70, uAddrA)},
		DelegationRewardsOwner: &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{uAddrA}},
	})

	at := func(h int64) time.Time { return time.Unix(1_700_000_000+h, 0) }
	sc.blocks = pChain(t, 0, hashing.ComputeHash256Array(gb),
		pSpec{typ: "ApricotCommitBlock"},
		pSpec{typ: "BanffStandardBlock", time: at(1), txs: []*txs.Tx{sc.baseTx}},
		pSpec{typ: "BanffStandardBlock", time: at(2), txs: []*txs.Tx{sc.delegator}},
		pSpec{typ: "BanffProposalBlock", time: at(3), txs: []*txs.Tx{sc.reward},
			rewards: map[ids.ID][][]byte{sc.delegator.ID(): {sc.rewardUTXO}}},
		pSpec{typ: "BanffCommitBlock", time: at(4)},
		pSpec{typ: "BanffStandardBlock", time: at(5), txs: []*txs.Tx{sc.export, imp}},
		pSpec{typ: "ApricotProposalBlock", txs: []*txs.Tx{sc.apricotDel}},
		pSpec{typ: "ApricotAbortBlock"},
	)
	return sc
}

// dumpUTXOs renders every UTXO row, for comparisons.
func dumpUTXOs(t *testing.T, s *sqlStore) string {
	t.Helper()
	var lines []string
	err := s.db.RunQuery(context.Background(), `SELECT tx_id, output_index, kind, amount, staked,
		COALESCE(spendable_height, -1), COALESCE(consumed_height, -1), COALESCE(stakeable_locktime, 0), created_height
		FROM p_utxos`, func(r *sql.Rows) error {
		var txID []byte
		var oi, amt, sh, ch, sl, cr int64
		var kind string
		var staked bool
		if err := r.Scan(&txID, &oi, &kind, &amt, &staked, &sh, &ch, &sl, &cr); err != nil {
			return err
		}
		id, _ := ids.ToID(txID)
		lines = append(lines, fmt.Sprintf("%s:%d %s amt=%d staked=%t spendable=%d consumed=%d slock=%d created=%d",
			id, oi, kind, amt, staked, sh, ch, sl, cr))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRow(context.Background(), "SELECT COUNT(*) FROM p_utxo_addresses").Scan(&n); err != nil {
		t.Fatal(err)
	}
	var m int
	if err := s.db.QueryRow(context.Background(), "SELECT COUNT(*) FROM p_imported_utxos").Scan(&m); err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + fmt.Sprintf("\naddresses=%d imported=%d", n, m)
}

type heldUTXO struct {
	txID ids.ID
	idx  uint32
}

func utxosOf(t *testing.T, s Store, addrs ...ids.ShortID) []heldUTXO {
	t.Helper()
	us, err := s.PUTXOsOf(context.Background(), addrs)
	if err != nil {
		t.Fatal(err)
	}
	var out []heldUTXO
	for _, u := range us {
		out = append(out, heldUTXO{u.TxID, u.OutputIndex})
	}
	return out
}

func TestPUTXOLife(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		sc := newUTXOScenario(t)
		s := openStore(t, dsn)
		d := sc.delegator.ID()

		// Up to the delegator: genesis, base tx, stake locked.
		mustApply(t, s, sc.blocks[:3])
		if got, want := utxosOf(t, s, uAddrA), []heldUTXO{{d, 0}, {ids.Empty, 1}}; !reflect.DeepEqual(got, want) {
			t.Errorf("A after staking = %v, want %v", got, want)
		}
		// B: the base tx output and the shared genesis UTXO; not the stake.
		if got, want := utxosOf(t, s, uAddrB), []heldUTXO{{sc.baseTx.ID(), 0}, {ids.Empty, 1}}; !reflect.DeepEqual(got, want) {
			t.Errorf("B after staking = %v, want %v", got, want)
		}
		// Genesis stake stays staked.
		if got := utxosOf(t, s, uAddrC); len(got) != 0 {
			t.Errorf("C holds %v, want nothing (genesis stake is staked)", got)
		}

		// The reward returns the stake and adds the reward UTXO.
		mustApply(t, s, sc.blocks[3:5])
		if got, want := utxosOf(t, s, uAddrB), []heldUTXO{{d, 3}, {d, 2}, {sc.baseTx.ID(), 0}, {ids.Empty, 1}}; !reflect.DeepEqual(got, want) {
			t.Errorf("B after reward = %v, want %v", got, want)
		}
		// Several addresses: each UTXO once, addresses in byte order.
		if got, want := utxosOf(t, s, uAddrB, uAddrA, uAddrA), []heldUTXO{{d, 1}, {d, 0}, {ids.Empty, 1}, {d, 3}, {d, 2}, {sc.baseTx.ID(), 0}}; !reflect.DeepEqual(got, want) {
			t.Errorf("A+B after reward = %v, want %v", got, want)
		}
		rs, err := s.PRewardUTXOs(ctx, d)
		if err != nil || len(rs) != 1 || string(rs[0]) != string(sc.rewardUTXO) {
			t.Errorf("PRewardUTXOs = %x, %v; want the reward UTXO", rs, err)
		}
		if rs, err := s.PRewardUTXOs(ctx, sc.reward.ID()); err != nil || len(rs) != 0 {
			t.Errorf("PRewardUTXOs(reward tx id) = %x, %v; want none", rs, err)
		}

		// Export spends stake and reward; the exported output is not B's or
		// C's on the P-chain; the import's output is.
		mustApply(t, s, sc.blocks[5:])
		e := sc.export.ID()
		if got, want := utxosOf(t, s, uAddrB), []heldUTXO{{e, 0}, {sc.baseTx.ID(), 0}, {ids.Empty, 1}}; !reflect.DeepEqual(got, want) {
			t.Errorf("B after export = %v, want %v", got, want)
		}
		imp := sc.blocks[5].Txs[1].ID
		if got, want := utxosOf(t, s, uAddrC), []heldUTXO{{imp, 0}}; !reflect.DeepEqual(got, want) {
			t.Errorf("C after import = %v, want %v", got, want)
		}
		// The aborted pre-Banff delegator's stake came back with the abort.
		a := sc.apricotDel.ID()
		if got, want := utxosOf(t, s, uAddrA), []heldUTXO{{a, 1}, {a, 0}, {d, 1}, {ids.Empty, 1}}; !reflect.DeepEqual(got, want) {
			t.Errorf("A after abort = %v, want %v", got, want)
		}
		var kind string
		var peer []byte
		if err := s.db.QueryRow(ctx, "SELECT kind, peer_chain_id FROM p_utxos WHERE tx_id = ? AND output_index = 1", e[:]).Scan(&kind, &peer); err != nil {
			t.Fatal(err)
		}
		if kind != pchain.KindExported || string(peer) != string(uXID[:]) {
			t.Errorf("exported output: kind %q, peer %x", kind, peer)
		}
		var src []byte
		var amt int64
		if err := s.db.QueryRow(ctx, "SELECT source_chain_id, amount FROM p_imported_utxos WHERE consumed_tx_id = ?", imp[:]).Scan(&src, &amt); err != nil {
			t.Fatal(err)
		}
		if string(src) != string(uXID[:]) || amt != 31 {
			t.Errorf("imported input: source %x amount %d", src, amt)
		}

		// Re-applying any part changes nothing.
		before := dumpUTXOs(t, s)
		mustApply(t, s, sc.blocks)
		mustApply(t, s, sc.blocks[2:4])
		mustApply(t, s, sc.blocks[6:])
		if after := dumpUTXOs(t, s); after != before {
			t.Errorf("re-applying changed the UTXOs:\n%s\nwas\n%s", after, before)
		}

		// Applying the whole chain in one batch gives the same rows.
		s2 := openStore(t, dbtestFresh(t, dsn))
		mustApply(t, s2, sc.blocks)
		if got := dumpUTXOs(t, s2); got != before {
			t.Errorf("one batch:\n%s\nbatches:\n%s", got, before)
		}
	})
}

// dbtestFresh returns another empty database of the same backend as dsn.
func dbtestFresh(t *testing.T, dsn string) string {
	if strings.HasPrefix(dsn, "sqlite:") {
		return dbtest.SQLite(t)
	}
	return dbtest.Postgres(t)
}

// A batch whose Rewards map lacks a rewarded staker is refused: the
// ingester always fetches them.
func TestPUTXOMissingRewards(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		sc := newUTXOScenario(t)
		s := openStore(t, dsn)
		mustApply(t, s, sc.blocks[:3])
		b := *sc.blocks[3]
		b.Rewards = map[ids.ID][]*pchain.UTXO{}
		if err := applyPBlocks(context.Background(), s, []*pchain.Block{&b}); err == nil {
			t.Fatal("no error for a reward tx without its reward UTXOs")
		}
	})
}
