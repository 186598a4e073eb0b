package exports

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"log/slog"
	"math/big"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/evmstate"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

const chainID = 43112

var (
	alice = common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	bob   = common.HexToAddress("0x0000000000000000000000000000000000000b0b")
	carol = common.HexToAddress("0x00000000000000000000000000000000000ca401")
	day0  = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
)

func hash(parts ...any) common.Hash {
	var b []byte
	for _, p := range parts {
		b = append(b, []byte(strconv.Quote(fmtAny(p)))...)
	}
	return crypto.Keccak256Hash(b)
}

func fmtAny(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case uint64:
		return strconv.FormatUint(v, 10)
	case int:
		return strconv.Itoa(v)
	}
	panic("fmtAny")
}

// chainBlocks are n blocks 6 hours apart from day0, block h with h%3+1
// txs: alice to bob, bob to carol, carol creating a contract in turn.
func chainBlocks(n uint64) []*internal.EVMBlockData {
	var out []*internal.EVMBlockData
	parent := common.Hash{}
	k := 0
	for h := range n {
		ts := day0.Add(time.Duration(h) * 6 * time.Hour)
		b := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: h, Hash: hash("block", h), ParentHash: parent, Timestamp: ts,
			Miner: carol, GasLimit: 8_000_000, BaseFee: big.NewInt(25e9)}, Traced: true}
		parent = b.Hash
		for i := range h%3 + 1 {
			from, to := []common.Address{alice, bob, carol}[k%3], []common.Address{bob, carol, {}}[k%3]
			tx := internal.EVMTx{Hash: hash("tx", h, int(i)), BlockNumber: h, BlockHash: b.Hash, Timestamp: ts, Index: uint32(i),
				From: from, Value: big.NewInt(int64(k)), Nonce: uint64(k), Type: 2, GasLimit: 100_000, GasPrice: big.NewInt(26e9),
				GasUsed: 21_000, Status: uint8(k % 2)}
			if k%3 == 2 {
				made := common.BigToAddress(big.NewInt(int64(1000 + k)))
				tx.ContractAddress = &made
			} else {
				tx.To = &to
			}
			b.Txs = append(b.Txs, tx)
			k++
		}
		b.TxCount = len(b.Txs)
		out = append(out, b)
	}
	return out
}

// wantCSV is the file of an EVM export of addrs over [first, last],
// computed from the blocks as the columns document it.
func wantCSV(t *testing.T, blocks []*internal.EVMBlockData, addrs []common.Address, first, last time.Time) ([][]string, []time.Time) {
	t.Helper()
	rows := [][]string{EVMColumns}
	var times []time.Time
	end := last.AddDate(0, 0, 1)
	for _, a := range addrs {
		for _, b := range blocks {
			for _, tx := range b.Txs {
				involved := tx.From == a || (tx.To != nil && *tx.To == a)
				if !involved || tx.Timestamp.Before(first) || !tx.Timestamp.Before(end) {
					continue
				}
				to, made := "", ""
				if tx.To != nil {
					to = tx.To.Hex()
				}
				if tx.ContractAddress != nil {
					made = tx.ContractAddress.Hex()
				}
				rows = append(rows, []string{"43112", a.Hex(), strconv.FormatUint(b.Number, 10), strconv.FormatInt(b.Timestamp.Unix(), 10),
					b.Hash.Hex(), tx.Hash.Hex(), strconv.Itoa(int(tx.Index)), strconv.Itoa(int(tx.Status)), "2", tx.From.Hex(), to,
					tx.Value.String(), "100000", "21000", "26000000000", strconv.FormatUint(tx.Nonce, 10), made})
				times = append(times, tx.Timestamp)
			}
		}
	}
	return rows, times
}

func openStore(t *testing.T, dsn string) (store.Store, []*internal.EVMBlockData) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	blocks := chainBlocks(48) // 12 days
	if err := st.ApplyEVMBlocks(ctx, chainID, blocks, evmstate.Apply[*store.EVMTx]); err != nil {
		t.Fatal(err)
	}
	return st, blocks
}

func createExport(t *testing.T, st store.Store, id string, first, last time.Time) {
	t.Helper()
	err := st.CreateOperation(context.Background(), store.Operation{ID: id, Owner: "k", Type: store.OpExportEVM, Created: time.Now(),
		Job: store.ExportJob{First: first, Last: last, EVMChains: []uint64{chainID},
			EVMAddresses: []string{alice.Hex(), bob.Hex()}}})
	if err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, st store.Store, id string) [][]string {
	t.Helper()
	var buf bytes.Buffer
	if err := st.OperationFile(context.Background(), id, func(b []byte) error { buf.Write(b); return nil }); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("the file is no CSV: %v\n%s", err, buf.String())
	}
	return rows
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestEVMExport: an export's rows are the addresses' txs within the days,
// and its operation completes with their count.
func TestEVMExport(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st, blocks := openStore(t, dsn)
		first, last := day0.AddDate(0, 0, 2), day0.AddDate(0, 0, 6)
		createExport(t, st, "op-1", first, last)
		w := NewWorker(st, Config{ChunkRows: 4}, quiet())
		if claimed, err := w.Once(ctx); !claimed || err != nil {
			t.Fatalf("Once: %v %v", claimed, err)
		}
		want, _ := wantCSV(t, blocks, []common.Address{alice, bob}, first, last)
		if got := readFile(t, st, "op-1"); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("file:\n%q\nwant\n%q", got, want)
		}
		op, err := st.Operation(ctx, "k", "op-1")
		if err != nil {
			t.Fatal(err)
		}
		if op.Status != store.OpCompleted || op.Rows != int64(len(want)-1) || op.Message != "exported "+strconv.Itoa(len(want)-1)+" rows" {
			t.Errorf("operation: %+v", op)
		}
		if len(want) < 20 {
			t.Fatalf("only %d rows: the test covers too little", len(want))
		}
		// No job left: nothing claimed.
		if claimed, err := w.Once(ctx); claimed || err != nil {
			t.Errorf("Once with no job: %v %v", claimed, err)
		}
	})
}

// stopAfter is the store as a worker sees it until its n-th chunk is
// written, after which it stops the worker (as a shutdown would).
type stopAfter struct {
	store.Store
	n      int
	cancel context.CancelFunc
}

func (s *stopAfter) AppendOperationChunk(ctx context.Context, id, claim string, c store.OperationChunk) error {
	err := s.Store.AppendOperationChunk(ctx, id, claim, c)
	if s.n--; s.n == 0 {
		s.cancel()
	}
	return err
}

// TestResumeAfterStop: a worker stopped mid-export leaves the job RUNNING
// at its last chunk; the next run (another worker, as after a restart)
// resumes it, and the file is the one an uninterrupted run writes.
func TestResumeAfterStop(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		st, blocks := openStore(t, dsn)
		first, last := day0.AddDate(0, 0, 1), day0.AddDate(0, 0, 10)
		want, _ := wantCSV(t, blocks, []common.Address{alice, bob}, first, last)
		createExport(t, st, "op-r", first, last)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		stopped := NewWorker(&stopAfter{Store: st, n: 3, cancel: cancel}, Config{ChunkRows: 3}, quiet())
		if claimed, err := stopped.Once(ctx); !claimed || err != nil {
			t.Fatalf("stopped Once: %v %v", claimed, err)
		}
		op, err := st.Operation(context.Background(), "", "op-r")
		if err != nil {
			t.Fatal(err)
		}
		if op.Status != store.OpRunning || op.Chunks != 3 || op.Rows == 0 || op.Rows >= int64(len(want)-1) || op.Claim != "" {
			t.Fatalf("after the stop: %+v (want RUNNING, 3 chunks, released, fewer than %d rows)", op, len(want)-1)
		}
		before := readFile(t, st, "op-r")
		if !slices.EqualFunc(before, want[:len(before)], slices.Equal) {
			t.Fatalf("the stopped file is no prefix of the whole one:\n%q", before)
		}
		restarted := NewWorker(st, Config{ChunkRows: 3}, quiet())
		if claimed, err := restarted.Once(context.Background()); !claimed || err != nil {
			t.Fatalf("resumed Once: %v %v", claimed, err)
		}
		if got := readFile(t, st, "op-r"); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("resumed file:\n%q\nwant\n%q", got, want)
		}
		if op, _ := st.Operation(context.Background(), "", "op-r"); op.Status != store.OpCompleted || op.Rows != int64(len(want)-1) {
			t.Errorf("resumed operation: %+v", op)
		}
	})
}

// TestTruncatedExport: past MaxRows the export completes with a warning
// and the day of the first row left out.
func TestTruncatedExport(t *testing.T) {
	st, blocks := openStore(t, dbtest.SQLite(t))
	first, last := day0, day0.AddDate(0, 0, 11)
	want, times := wantCSV(t, blocks, []common.Address{alice, bob}, first, last)
	createExport(t, st, "op-t", first, last)
	const max = 7
	if _, err := NewWorker(st, Config{ChunkRows: 2, MaxRows: max}, quiet()).Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, st, "op-t"); !slices.EqualFunc(got, want[:max+1], slices.Equal) {
		t.Fatalf("file:\n%q\nwant\n%q", got, want[:max+1])
	}
	op, _ := st.Operation(context.Background(), "", "op-t")
	if op.Status != store.OpCompletedWithWarning || op.Code != CodeTruncated || op.NextDate != times[max].Format(time.DateOnly) {
		t.Errorf("operation: %+v, want nextDate %s", op, times[max].Format(time.DateOnly))
	}
}
