package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derive/cstate"
	"github.com/avaindex/avaindex/internal/derive/erc20"
	"github.com/avaindex/avaindex/internal/derive/evmstate"
	"github.com/avaindex/avaindex/internal/derive/nfts"
	"github.com/avaindex/avaindex/internal/derive/pstate"
	"github.com/avaindex/avaindex/internal/derive/xstate"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// deriveEVM is the indexer's derivation of an EVM chain's blocks, which
// the tests of derived tables apply with their blocks.
var deriveEVM = evmstate.Apply[*EVMTx]

// deriveP, deriveX and deriveC are the indexer's derivations of the P-,
// X- and C-chains' batches.
var (
	deriveP = pstate.Apply[*PTx]
	deriveX = xstate.Apply[*XTx]
	deriveC = cstate.Apply[*CTx]
)

// backfillDerivations are the derivations of the backfills of derived
// rows, as derive's Backfiller passes them.
var backfillDerivations = BackfillDerivations{
	ERC20:    erc20.ApplyMoves[*EVMTx],
	NFTSpans: nfts.ApplySpanMoves[*EVMTx],
}

// testID derives a deterministic id from parts.
func testID(parts ...any) ids.ID {
	return ids.ID(sha256.Sum256(fmt.Append(nil, parts...)))
}

// pSpec is one block of a test P-chain: its platformvm kind, its time (for
// Banff blocks), its txs (a proposal block's proposal tx last) and, keyed
// by staker, the reward UTXOs the node reports for its RewardValidatorTx.
type pSpec struct {
	typ     string
	time    time.Time
	txs     []*txs.Tx
	rewards map[ids.ID][][]byte
}

// pChain builds the platformvm blocks of specs from height first on, the
// first one's parent being parent (a known genesis's id makes block 0 bring
// that genesis), with avalanchego's constructors, and decodes them with
// pchain, as the ingester does: option blocks linked to their proposal
// blocks, reward UTXOs attached.
func pChain(t testing.TB, first uint64, parent ids.ID, specs ...pSpec) []*pchain.Block {
	t.Helper()
	var out []*pchain.Block
	for i, sp := range specs {
		h := first + uint64(i)
		var (
			blk block.Block
			err error
		)
		switch sp.typ {
		case "ApricotStandardBlock":
			blk, err = block.NewApricotStandardBlock(parent, h, sp.txs)
		case "BanffStandardBlock":
			blk, err = block.NewBanffStandardBlock(sp.time, parent, h, sp.txs)
		case "ApricotProposalBlock":
			blk, err = block.NewApricotProposalBlock(parent, h, sp.txs[0])
		case "BanffProposalBlock":
			n := len(sp.txs) - 1
			blk, err = block.NewBanffProposalBlock(sp.time, parent, h, sp.txs[n], sp.txs[:n])
		case "ApricotCommitBlock":
			blk, err = block.NewApricotCommitBlock(parent, h)
		case "ApricotAbortBlock":
			blk, err = block.NewApricotAbortBlock(parent, h)
		case "BanffCommitBlock":
			blk, err = block.NewBanffCommitBlock(sp.time, parent, h)
		case "BanffAbortBlock":
			blk, err = block.NewBanffAbortBlock(sp.time, parent, h)
		default:
			t.Fatalf("no block kind %q", sp.typ)
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := pchain.Decode(h, blk.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		for staker, raw := range sp.rewards {
			if err := b.SetRewardUTXOs(staker, raw); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, b)
		parent = b.ID
	}
	if err := pchain.LinkProposals(out, func(h uint64, _ ids.ID) (*pchain.Block, error) {
		return nil, fmt.Errorf("no block %d before the chain", h)
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// plainTx is a real P-chain BaseTx that moves nothing, told apart by memo.
func plainTx(t testing.TB, memo string) *txs.Tx {
	t.Helper()
	tx, err := txs.NewSigned(&txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.UnitTestID,
		BlockchainID: constants.PlatformChainID, Memo: []byte(memo)}}, txs.Codec, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// makeSpecs returns the specs of blocks 0..to-1 of a test chain named by
// salt: block h has h%4 plain txs (so some have none), and blocks below 3
// are pre-Banff standard blocks, without a timestamp.
func makeSpecs(t testing.TB, salt string, to uint64) []pSpec {
	t.Helper()
	specs := make([]pSpec, to)
	for h := range to {
		sp := &specs[h]
		sp.typ = "ApricotStandardBlock"
		if h >= 3 {
			sp.typ, sp.time = "BanffStandardBlock", time.Unix(1_700_000_000+int64(h), 0).UTC()
		}
		for i := range h % 4 {
			sp.txs = append(sp.txs, plainTx(t, fmt.Sprintf("%s tx %d/%d", salt, h, i)))
		}
	}
	return specs
}

// makeBlocks returns blocks from..to-1 of the test chain named by salt
// (see makeSpecs), whose genesis is not known.
func makeBlocks(t testing.TB, salt string, from, to uint64) []*pchain.Block {
	t.Helper()
	return pChain(t, 0, testID(salt, "genesis"), makeSpecs(t, salt, to)...)[from:]
}

// storedForm returns b as the store keeps and serves it.
func storedForm(b *pchain.Block) *internal.PBlock {
	pb := &internal.PBlock{Height: b.Height, ID: b.ID, ParentID: b.ParentID, Type: b.Type, Timestamp: b.Timestamp, Bytes: b.Bytes}
	for _, t := range b.Txs {
		pb.Txs = append(pb.Txs, t.PTx)
	}
	return pb
}

// stored returns blocks as the store serves them.
func stored(blocks []*pchain.Block) []*internal.PBlock {
	out := make([]*internal.PBlock, len(blocks))
	for i, b := range blocks {
		out[i] = storedForm(b)
	}
	return out
}

func openStore(t testing.TB, dsn string) *sqlStore {
	t.Helper()
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.(*sqlStore)
}

func mustApply(t *testing.T, s Store, bs []*pchain.Block) {
	t.Helper()
	if err := applyPBlocks(context.Background(), s, bs); err != nil {
		t.Fatal(err)
	}
}

// state is what the tests compare before and after an operation.
type state struct {
	blocks, txs int
	cursor      uint64
	hasCursor   bool
}

func getState(t *testing.T, s *sqlStore) state {
	t.Helper()
	ctx := context.Background()
	var st state
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM p_blocks").Scan(&st.blocks); err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM p_txs").Scan(&st.txs); err != nil {
		t.Fatal(err)
	}
	var err error
	st.cursor, st.hasCursor, err = s.Cursor(ctx, ChainCursor(internal.PChain))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func wantState(t *testing.T, s *sqlStore, want state) {
	t.Helper()
	if got := getState(t, s); got != want {
		t.Fatalf("state = %+v, want %+v", got, want)
	}
}

// txCount is the number of txs makeBlocks puts in from..to-1.
func txCount(from, to uint64) int {
	n := 0
	for h := from; h < to; h++ {
		n += int(h % 4)
	}
	return n
}

func TestApplyAndRead(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		if _, ok, err := s.Cursor(ctx, ChainCursor(internal.PChain)); err != nil || ok {
			t.Fatalf("Cursor of an empty store: ok=%t, err=%v", ok, err)
		}
		if err := applyPBlocks(ctx, s, nil); err != nil {
			t.Fatalf("empty batch: %v", err)
		}
		bs := makeBlocks(t, "a", 0, 10)
		mustApply(t, s, bs)
		wantState(t, s, state{blocks: 10, txs: txCount(0, 10), cursor: 9, hasCursor: true})
		want := stored(bs)
		if _, ok, _ := s.Cursor(ctx, ChainCursor(internal.XChain)); ok {
			t.Error("X-chain cursor set by P-chain blocks")
		}
		for _, want := range want {
			got, err := s.PBlockByHeight(ctx, want.Height)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("PBlockByHeight(%d) =\n%+v\nwant\n%+v", want.Height, got, want)
			}
			got, err = s.PBlockByID(ctx, want.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("PBlockByID(%s) =\n%+v\nwant\n%+v", want.ID, got, want)
			}
			id, b, err := s.PBlockBytesByHeight(ctx, want.Height)
			if err != nil || id != want.ID || !bytes.Equal(b, want.Bytes) {
				t.Errorf("PBlockBytesByHeight(%d) = %s, %x, %v; want %s, %x", want.Height, id, b, err, want.ID, want.Bytes)
			}
			if b, err := s.PBlockBytesByID(ctx, want.ID); err != nil || !bytes.Equal(b, want.Bytes) {
				t.Errorf("PBlockBytesByID(%s) = %x, %v; want %x", want.ID, b, err, want.Bytes)
			}
		}
		if err := s.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// A local timestamp with sub-second parts comes back as UTC seconds.
func TestTimestampStoredAsSeconds(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		b := makeBlocks(t, "ts", 0, 1)[0]
		b.Timestamp = time.Date(2024, 5, 6, 7, 8, 9, 999, time.FixedZone("x", 3600))
		mustApply(t, s, []*pchain.Block{b})
		got, err := s.PBlockByHeight(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := time.Unix(b.Timestamp.Unix(), 0).UTC(); !got.Timestamp.Equal(want) || got.Timestamp.Location() != time.UTC {
			t.Errorf("timestamp = %v, want %v", got.Timestamp, want)
		}
	})
}

func TestApplyIdempotent(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		mustApply(t, s, makeBlocks(t, "a", 0, 20))
		want := state{blocks: 20, txs: txCount(0, 20), cursor: 19, hasCursor: true}
		wantState(t, s, want)

		// The same batch again.
		mustApply(t, s, makeBlocks(t, "a", 0, 20))
		wantState(t, s, want)
		// A batch inside what is stored: nothing changes, the cursor stays.
		mustApply(t, s, makeBlocks(t, "a", 5, 12))
		wantState(t, s, want)
		mustApply(t, s, makeBlocks(t, "a", 19, 20))
		wantState(t, s, want)
		// An overlapping batch adds only the new blocks.
		mustApply(t, s, makeBlocks(t, "a", 15, 30))
		wantState(t, s, state{blocks: 30, txs: txCount(0, 30), cursor: 29, hasCursor: true})
		// An older batch after that still leaves the cursor alone.
		mustApply(t, s, makeBlocks(t, "a", 0, 3))
		wantState(t, s, state{blocks: 30, txs: txCount(0, 30), cursor: 29, hasCursor: true})

		b, err := s.PBlockByHeight(ctx, 17)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(b, storedForm(makeBlocks(t, "a", 17, 18)[0])) {
			t.Errorf("block 17 changed: %+v", b)
		}
	})
}

// TestFreshBatch checks which batches the appliers see as fresh (their
// rows inserted without a conflict clause): exactly those that start
// above the cursor, and the first.
func TestFreshBatch(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		var fresh []bool
		derive := func(ctx context.Context, tx *PTx, batch *internal.PBatch) error {
			fresh = append(fresh, newRowsConflict(ctx) == "")
			return deriveP(ctx, tx, batch)
		}
		for _, r := range [][2]uint64{{0, 10}, {0, 10}, {5, 12}, {12, 20}, {19, 25}, {25, 26}} {
			if err := applyPBlocksWith(context.Background(), s, makeBlocks(t, "a", r[0], r[1]), derive); err != nil {
				t.Fatal(err)
			}
		}
		if want := []bool{true, false, false, true, false, true}; !slices.Equal(fresh, want) {
			t.Errorf("fresh = %v, want %v", fresh, want)
		}
		wantState(t, s, state{blocks: 26, txs: txCount(0, 26), cursor: 25, hasCursor: true})
	})
}

func TestApplyRejects(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		mustApply(t, s, makeBlocks(t, "a", 0, 10))
		before := getState(t, s)

		bs := makeBlocks(t, "a", 10, 20)
		gap := append(append([]*pchain.Block{}, bs[:3]...), bs[4:]...)
		desc := []*pchain.Block{bs[1], bs[0]}
		dup := []*pchain.Block{bs[0], bs[0]}
		for name, batch := range map[string][]*pchain.Block{
			"gap inside":        gap,
			"descending":        desc,
			"repeated height":   dup,
			"nil block":         {bs[0], nil},
			"gap after cursor":  makeBlocks(t, "a", 11, 15),
			"height > MaxInt64": {{Height: math.MaxInt64 + 1}},
		} {
			err := applyPBlocks(ctx, s, batch)
			if !errors.Is(err, derrors.InvalidArgument) {
				t.Errorf("%s: err = %v, want InvalidArgument", name, err)
			}
			wantState(t, s, before)
		}
	})
}

// TestApplyConflicts applies batches that clash with what is stored, or
// with themselves: each fails whole, leaving the store as it was.
func TestApplyConflicts(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		mustApply(t, s, makeBlocks(t, "a", 0, 10))
		before := getState(t, s)

		// Another chain's blocks at stored heights.
		if err := applyPBlocks(ctx, s, makeBlocks(t, "b", 5, 15)); err == nil {
			t.Error("different blocks at stored heights: no error")
		}
		wantState(t, s, before)

		// A duplicate tx id with different content later in the same batch:
		// the first copy's rows are written before the clash is seen.
		bs := makeBlocks(t, "a", 10, 20)
		bs[5].Txs[1] = &pchain.Tx{PTx: internal.PTx{ID: bs[3].Txs[0].ID, Type: "Other", Bytes: []byte("other")},
			Tx: bs[5].Txs[1].Tx, UTXOs: bs[5].Txs[1].UTXOs}
		if err := applyPBlocks(ctx, s, bs); err == nil {
			t.Error("duplicate tx id in a batch: no error")
		}
		wantState(t, s, before)

		// A tx id already stored in another block.
		bs = makeBlocks(t, "a", 10, 12)
		bs[1].Txs[0].ID = makeBlocks(t, "a", 5, 6)[0].Txs[0].ID
		if err := applyPBlocks(ctx, s, bs); err == nil {
			t.Error("tx id stored in another block: no error")
		}
		wantState(t, s, before)

		// A stored block re-applied with a tx missing.
		bs = makeBlocks(t, "a", 0, 10)
		bs[7].Txs = bs[7].Txs[:1]
		if err := applyPBlocks(ctx, s, bs); err == nil {
			t.Error("stored block re-applied with fewer txs: no error")
		}
		wantState(t, s, before)

		// The good batch still goes in.
		mustApply(t, s, makeBlocks(t, "a", 10, 20))
		wantState(t, s, state{blocks: 20, txs: txCount(0, 20), cursor: 19, hasCursor: true})
	})
}

// TestApplyAtomic fails ApplyPBlocks's transaction after its rows are
// written and before the cursor moves, as a crash would: neither the blocks
// nor the cursor may change.
func TestApplyAtomic(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		errCrash := errors.New("crash")
		var sawRows bool
		// derive runs beforeCursor after the indexer's derivation, inside
		// ApplyPBlocks's transaction after the rows are written and before
		// the cursor moves.
		var beforeCursor func(tx *database.DB) error
		derive := func(ctx context.Context, tx *PTx, batch *internal.PBatch) error {
			if err := deriveP(ctx, tx, batch); err != nil {
				return err
			}
			return beforeCursor(tx.db)
		}
		beforeCursor = func(tx *database.DB) error {
			var n int
			if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM p_blocks").Scan(&n); err != nil {
				return err
			}
			sawRows = n > 0
			return errCrash
		}
		if err := applyPBlocksWith(ctx, s, makeBlocks(t, "a", 0, 300), derive); !errors.Is(err, errCrash) {
			t.Fatalf("err = %v, want errCrash", err)
		}
		if !sawRows {
			t.Error("the hook did not see the rows inside the transaction")
		}
		wantState(t, s, state{})

		mustApply(t, s, makeBlocks(t, "a", 0, 300))
		want := state{blocks: 300, txs: txCount(0, 300), cursor: 299, hasCursor: true}
		wantState(t, s, want)

		beforeCursor = func(*database.DB) error { return errCrash }
		if err := applyPBlocksWith(ctx, s, makeBlocks(t, "a", 250, 600), derive); !errors.Is(err, errCrash) {
			t.Fatalf("err = %v, want errCrash", err)
		}
		wantState(t, s, want)
		if _, err := s.PBlockByHeight(ctx, 300); !errors.Is(err, derrors.NotFound) {
			t.Errorf("block 300 of the failed batch: err = %v, want NotFound", err)
		}

		// A cancelled context fails the batch the same way.
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := applyPBlocks(cctx, s, makeBlocks(t, "a", 300, 400)); err == nil {
			t.Error("cancelled context: no error")
		}
		wantState(t, s, want)
	})
}

func TestNotFound(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		mustApply(t, s, makeBlocks(t, "a", 0, 5))
		txOfBlock1 := makeBlocks(t, "a", 1, 2)[0].Txs[0].ID
		for name, f := range map[string]func() error{
			"height":         func() error { _, err := s.PBlockByHeight(ctx, 5); return err },
			"huge height":    func() error { _, err := s.PBlockByHeight(ctx, math.MaxUint64); return err },
			"id":             func() error { _, err := s.PBlockByID(ctx, testID("nope")); return err },
			"tx id as block": func() error { _, err := s.PBlockByID(ctx, txOfBlock1); return err },
			"summary id": func() error {
				_, err := s.BlockSummaryByID(ctx, BlockQuery{Chain: internal.PChain}, testID("nope"))
				return err
			},
			"bytes height": func() error { _, _, err := s.PBlockBytesByHeight(ctx, 5); return err },
			"bytes huge":   func() error { _, _, err := s.PBlockBytesByHeight(ctx, math.MaxUint64); return err },
			"bytes id":     func() error { _, err := s.PBlockBytesByID(ctx, testID("nope")); return err },
		} {
			err := f()
			if !errors.Is(err, derrors.NotFound) {
				t.Errorf("%s: err = %v, want NotFound", name, err)
			}
			if derrors.ToStatus(err) != 404 {
				t.Errorf("%s: status %d", name, derrors.ToStatus(err))
			}
		}
	})
}

func heights(bs []*BlockSummary) []uint64 {
	var hs []uint64
	for _, b := range bs {
		hs = append(hs, b.Height)
	}
	return hs
}

// summaryOf is the summary of a block as PBlockSummaries should read it.
func summaryOf(b *internal.PBlock) *BlockSummary {
	s := &BlockSummary{Height: b.Height, ID: b.ID, ParentID: b.ParentID, Type: b.Type, Timestamp: b.Timestamp, Size: len(b.Bytes)}
	for _, t := range b.Txs {
		s.TxIDs = append(s.TxIDs, t.ID)
	}
	return s
}

func TestPBlockSummaries(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		if bs, err := s.BlockSummaries(ctx, BlockQuery{Chain: internal.PChain, Desc: true}, nil, 10); err != nil || len(bs) != 0 {
			t.Fatalf("empty store: %v, %v", heights(bs), err)
		}
		blocks := makeBlocks(t, "a", 0, 25)
		// Bytes of several lengths, NULs included: the size is the byte
		// length on both engines (the store keeps what it is given).
		for i, b := range blocks {
			b.Bytes = append(b.Bytes, make([]byte, i*37)...)
		}
		mustApply(t, s, blocks)
		all := stored(blocks)

		for _, want := range all {
			got, err := s.BlockSummaryByID(ctx, BlockQuery{Chain: internal.PChain}, want.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, summaryOf(want)) {
				t.Errorf("PBlockSummaryByID(%s) =\n%+v\nwant\n%+v", want.ID, got, summaryOf(want))
			}
		}

		// Page through both ways with the last height as the keyset.
		for _, desc := range []bool{false, true} {
			var got []uint64
			var after *uint64
			pages := 0
			for {
				bs, err := s.BlockSummaries(ctx, BlockQuery{Chain: internal.PChain, Desc: desc}, after, 10)
				if err != nil {
					t.Fatal(err)
				}
				if len(bs) == 0 {
					break
				}
				pages++
				for _, b := range bs {
					if want := summaryOf(all[b.Height]); !reflect.DeepEqual(b, want) {
						t.Errorf("listed block %d = %+v, want %+v", b.Height, b, want)
					}
				}
				got = append(got, heights(bs)...)
				last := bs[len(bs)-1].Height
				after = &last
			}
			var want []uint64
			for i := range uint64(25) {
				if desc {
					want = append(want, 24-i)
				} else {
					want = append(want, i)
				}
			}
			if !reflect.DeepEqual(got, want) || pages != 3 {
				t.Errorf("desc=%t: %d pages, heights %v, want %v", desc, pages, got, want)
			}
		}

		var every []uint64
		for _, b := range all {
			every = append(every, b.Height)
		}
		u := func(v uint64) *uint64 { return &v }
		for _, tc := range []struct {
			after *uint64
			limit int
			desc  bool
			want  []uint64
		}{
			{nil, 3, false, []uint64{0, 1, 2}},
			{nil, 3, true, []uint64{24, 23, 22}},
			{u(22), 5, false, []uint64{23, 24}},
			{u(2), 5, true, []uint64{1, 0}},
			{u(0), 5, true, nil},
			{u(24), 5, false, nil},
			{u(1000), 2, true, []uint64{24, 23}},
			{u(math.MaxUint64), 2, true, []uint64{24, 23}},
			{u(math.MaxUint64), 2, false, nil},
			{u(math.MaxInt64), 2, true, []uint64{24, 23}},
			{nil, 1000, false, every},
		} {
			bs, err := s.BlockSummaries(ctx, BlockQuery{Chain: internal.PChain, Desc: tc.desc}, tc.after, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := heights(bs); !reflect.DeepEqual(got, tc.want) {
				a := "nil"
				if tc.after != nil {
					a = fmt.Sprint(*tc.after)
				}
				t.Errorf("PBlockSummaries(after=%s, limit=%d, desc=%t) = %v, want %v", a, tc.limit, tc.desc, got, tc.want)
			}
		}
		if _, err := s.BlockSummaries(ctx, BlockQuery{Chain: internal.PChain, Desc: false}, nil, 0); !errors.Is(err, derrors.InvalidArgument) {
			t.Errorf("limit 0: err = %v, want InvalidArgument", err)
		}
	})
}

func TestSettings(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		if v, ok, err := s.Setting(ctx, "k"); err != nil || ok || v != nil {
			t.Fatalf("absent setting: %q, %t, %v", v, ok, err)
		}
		if err := s.PutSettingIfAbsent(ctx, "k", []byte{0, 1, 2, 0xff}); err != nil {
			t.Fatal(err)
		}
		// A second put keeps the first value.
		if err := s.PutSettingIfAbsent(ctx, "k", []byte("other")); err != nil {
			t.Fatal(err)
		}
		if v, ok, err := s.Setting(ctx, "k"); err != nil || !ok || string(v) != "\x00\x01\x02\xff" {
			t.Fatalf("Setting(k) = %q, %t, %v", v, ok, err)
		}
		// Empty values are values.
		if err := s.PutSettingIfAbsent(ctx, "empty", nil); err != nil {
			t.Fatal(err)
		}
		if v, ok, err := s.Setting(ctx, "empty"); err != nil || !ok || v == nil || len(v) != 0 {
			t.Fatalf("Setting(empty) = %q (nil=%t), %t, %v", v, v == nil, ok, err)
		}

		// Settings survive reopening, and reopening migrates nothing anew.
		s.Close()
		s2 := openStore(t, dsn)
		if v, ok, err := s2.Setting(ctx, "k"); err != nil || !ok || string(v) != "\x00\x01\x02\xff" {
			t.Fatalf("after reopening Setting(k) = %q, %t, %v", v, ok, err)
		}
	})
}

// TestConcurrentOpenAndPut opens one database from several "processes" at
// once, each racing to put its own value for the same key: all agree on a
// single winner.
func TestConcurrentOpenAndPut(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		const n = 4
		vals := make([]string, n)
		errs := make([]error, n)
		done := make(chan int)
		for i := range n {
			go func() {
				defer func() { done <- i }()
				s, err := Open(ctx, dsn)
				if err != nil {
					errs[i] = err
					return
				}
				defer s.Close()
				if err := s.PutSettingIfAbsent(ctx, "key", []byte(fmt.Sprint("value", i))); err != nil {
					errs[i] = err
					return
				}
				v, _, err := s.Setting(ctx, "key")
				vals[i], errs[i] = string(v), err
			}()
		}
		for range n {
			<-done
		}
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("process %d: %v", i, errs[i])
			}
			if vals[i] != vals[0] || vals[0] == "" {
				t.Fatalf("processes disagree: %q", vals)
			}
		}
	})
}

// TestReadWhileIngesting lists and reads blocks while batches are applied:
// reads never fail, and never see a block without its txs or a cursor
// ahead of the stored blocks.
func TestReadWhileIngesting(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		blocks := makeBlocks(t, "a", 0, 2000)
		all := stored(blocks)
		done := make(chan error)
		go func() {
			for i := 0; i < len(blocks); i += 100 {
				if err := applyPBlocks(ctx, s, blocks[i:i+100]); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
		reads := 0
		for {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				if reads == 0 {
					t.Log("no read overlapped the ingest")
				}
				wantState(t, s, state{blocks: 2000, txs: txCount(0, 2000), cursor: 1999, hasCursor: true})
				return
			default:
			}
			reads++
			h, ok, err := s.Cursor(ctx, ChainCursor(internal.PChain))
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				continue
			}
			b, err := s.PBlockByHeight(ctx, h)
			if err != nil {
				t.Fatalf("block at cursor %d: %v", h, err)
			}
			if !reflect.DeepEqual(b, all[h]) {
				t.Fatalf("block %d read while ingesting differs", h)
			}
			bs, err := s.BlockSummaries(ctx, BlockQuery{Chain: internal.PChain, Desc: true}, nil, 50)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range bs {
				if !reflect.DeepEqual(b, summaryOf(all[b.Height])) {
					t.Fatalf("listed block %d read while ingesting differs", b.Height)
				}
			}
		}
	})
}

// applyPBlocks applies blocks to st as the indexer does: as the batch
// pchain.Batch makes of them, with the indexer's derivation.
func applyPBlocks(ctx context.Context, st pBlockApplier, blocks []*pchain.Block) error {
	return applyPBlocksWith(ctx, st, blocks, deriveP)
}

type pBlockApplier interface {
	ApplyPBlocks(context.Context, *internal.PBatch, PDerivation) error
}

// applyPBlocksWith is applyPBlocks with the derivation derive.
func applyPBlocksWith(ctx context.Context, st pBlockApplier, blocks []*pchain.Block, derive PDerivation) error {
	batch, err := pchain.Batch(blocks)
	if err != nil {
		return err
	}
	return st.ApplyPBlocks(ctx, batch, derive)
}
