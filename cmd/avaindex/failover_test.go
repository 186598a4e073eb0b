package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// failoverKills is how many times TestFailover kills the indexing instance.
const failoverKills = 4

// TestFailover runs three instances of avaindex on one PostgreSQL store
// against the local network while P-chain transactions are issued, and
// SIGKILLs the instance that indexes, again and again (each killed one is
// started anew): another takes over within seconds every time, reads from
// the living instances never fail, and the store ends with every block the
// node's, once, and the key's UTXOs and balance as the node has them.
func TestFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	n := testnet.Get(t)
	pg := dbtest.Postgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	type proc struct {
		name, url string
		cmd       *exec.Cmd
	}
	var (
		mu    sync.Mutex
		alive []*proc
		seq   int
	)
	start := func() *proc {
		seq++
		name := fmt.Sprintf("instance-%d", seq)
		cmd, url := startProcess(t, "--node-url", n.URL, "--db", pg, "--listen", "127.0.0.1:0", "--instance-name", name,
			"--poll-interval", "20ms", "--ingest-batch-size", "2")
		p := &proc{name: name, url: url, cmd: cmd}
		mu.Lock()
		alive = append(alive, p)
		mu.Unlock()
		return p
	}
	for range 3 {
		start()
	}
	living := func() []*proc {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(alive)
	}
	type instanceStatus struct {
		Ready    bool `json:"ready"`
		Instance struct {
			Name     string `json:"name"`
			Indexing bool   `json:"indexing"`
			Indexer  string `json:"indexer"`
		} `json:"instance"`
	}
	status := func(p *proc) (instanceStatus, error) {
		var s instanceStatus
		resp, err := http.Get(p.url + "/readyz")
		if err != nil {
			return s, err
		}
		defer resp.Body.Close()
		return s, json.NewDecoder(resp.Body).Decode(&s)
	}
	// leader waits until exactly one living instance says it indexes.
	leader := func() (*proc, time.Time) {
		t.Helper()
		for {
			var leaders []*proc
			for _, p := range living() {
				if s, err := status(p); err == nil && s.Instance.Indexing {
					leaders = append(leaders, p)
				}
			}
			if len(leaders) == 1 {
				return leaders[0], time.Now()
			}
			if ctx.Err() != nil {
				t.Fatalf("%d instances say they index, want 1", len(leaders))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// Transactions go on all along, and so do reads from every living
	// instance; a read may fail only when its instance was killed.
	stopLoad := make(chan struct{})
	var load sync.WaitGroup
	load.Add(2)
	issued := 0
	go func() {
		defer load.Done()
		for {
			select {
			case <-stopLoad:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := n.PBaseTx(ctx, n.Addr, 1000); err != nil {
				t.Errorf("issuing a P-chain tx: %v", err)
				return
			}
			issued++
		}
	}()
	reads, failed := 0, 0
	go func() {
		defer load.Done()
		for {
			select {
			case <-stopLoad:
				return
			default:
			}
			for _, p := range living() {
				resp, err := http.Get(p.url + "/v1/networks/local/blockchains/p-chain/blocks?pageSize=5")
				if err == nil {
					resp.Body.Close()
				}
				still := slices.Contains(living(), p)
				switch {
				case err != nil && still:
					failed++
					t.Errorf("a read from the living %s failed: %v", p.name, err)
				case err == nil && resp.StatusCode != http.StatusOK:
					failed++
					t.Errorf("a read from %s: HTTP %d", p.name, resp.StatusCode)
				case err == nil:
					reads++
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()

	var takeovers []time.Duration
	for range failoverKills {
		l, _ := leader()
		time.Sleep(700 * time.Millisecond) // let it index a few blocks
		mu.Lock()
		alive = slices.DeleteFunc(alive, func(p *proc) bool { return p == l })
		mu.Unlock()
		if err := l.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		next, at := leader()
		takeovers = append(takeovers, at.Sub(killed))
		t.Logf("killed %s; %s indexes %s later", l.name, next.name, at.Sub(killed).Round(time.Millisecond))
		start()
	}
	close(stopLoad)
	load.Wait()

	// Caught up: every block is the node's, once, and the UTXOs derived
	// from them are the node's.
	pc := platformvm.NewClient(n.URL)
	tip, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	last, _ := leader()
	served := platformvm.NewClient(last.url)
	for {
		h, err := served.GetHeight(ctx)
		if err == nil && h >= tip {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("avaindex at P-chain height %d (%v) after the kills, node at %d", h, err, tip)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for h := range tip + 1 {
		want, err := pc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		got, err := served.GetBlockByHeight(ctx, h)
		if err != nil || string(got) != string(want) {
			t.Fatalf("block %d: %v, or not the node's", h, err)
		}
	}
	var count int
	if err := queryPG(ctx, pg, "SELECT COUNT(*) FROM p_blocks", &count); err != nil {
		t.Fatal(err)
	}
	if uint64(count) != tip+1 {
		t.Errorf("the store holds %d P-chain blocks, want %d (heights 0..%d)", count, tip+1, tip)
	}
	addrs := []ids.ShortID{n.Addr}
	wantBal, err := pc.GetBalance(ctx, addrs)
	if err != nil {
		t.Fatal(err)
	}
	gotBal, err := served.GetBalance(ctx, addrs)
	if err != nil {
		t.Fatal(err)
	}
	if gotBal.Balance != wantBal.Balance || !sameUTXOs(gotBal.UTXOIDs, wantBal.UTXOIDs) {
		t.Errorf("the key's balance is %d in %d UTXOs, the node says %d in %d", gotBal.Balance, len(gotBal.UTXOIDs), wantBal.Balance, len(wantBal.UTXOIDs))
	}
	slices.Sort(takeovers)
	t.Logf("%d kills while %d txs were issued and %d reads answered (%d failed): takeover p50 %s, max %s",
		failoverKills, issued, reads, failed, takeovers[len(takeovers)/2].Round(time.Millisecond), takeovers[len(takeovers)-1].Round(time.Millisecond))
}

// sameUTXOs compares two lists of UTXO ids as sets (the node orders a
// block's by Go map order).
func sameUTXOs(a, b []*avax.UTXOID) bool {
	set := func(l []*avax.UTXOID) []ids.ID {
		out := make([]ids.ID, len(l))
		for i, u := range l {
			out[i] = u.InputID()
		}
		slices.SortFunc(out, func(x, y ids.ID) int { return x.Compare(y) })
		return out
	}
	return slices.Equal(set(a), set(b))
}

// queryPG scans the one row of query on the database at dsn into dest.
func queryPG(ctx context.Context, dsn, query string, dest ...any) error {
	db, err := database.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.QueryRow(ctx, query).Scan(dest...)
}
