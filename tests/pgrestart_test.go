package tests

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

const pgBin = "/usr/lib/postgresql/15/bin"

// privatePostgres is a PostgreSQL server of the test's own, in a
// temporary directory, on a port of its own: stopping it touches no other
// test's server.
type privatePostgres struct {
	t    *testing.T
	dir  string
	port int
	// as runs the server's commands as the postgres user when the test
	// runs as root, which initdb and postgres refuse.
	as      *syscall.Credential
	running bool
}

func newPrivatePostgres(t *testing.T) *privatePostgres {
	t.Helper()
	requireBinary(t, filepath.Join(pgBin, "initdb"), "PostgreSQL 15's initdb")
	requireBinary(t, filepath.Join(pgBin, "pg_ctl"), "PostgreSQL 15's pg_ctl")
	p := &privatePostgres{t: t, port: freeTCPPort(t)}
	dir, err := os.MkdirTemp("", "avaindex-pg-")
	if err != nil {
		t.Fatal(err)
	}
	p.dir = dir
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("running as root, and no postgres user to run PostgreSQL as: %v", err)
			}
			t.Skipf("SKIP: running as root, and no postgres user to run PostgreSQL as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		p.as = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	p.run("initdb", "-D", filepath.Join(dir, "data"), "-U", "postgres", "--auth=trust", "--no-sync")
	p.start()
	t.Cleanup(func() { p.stop() })
	return p
}

func (p *privatePostgres) run(name string, args ...string) {
	p.t.Helper()
	cmd := exec.Command(filepath.Join(pgBin, name), args...)
	cmd.Dir = p.dir
	if p.as != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.as}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		p.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func (p *privatePostgres) start() {
	p.t.Helper()
	p.run("pg_ctl", "-D", filepath.Join(p.dir, "data"), "-l", filepath.Join(p.dir, "log"), "-w", "-t", "30",
		"-o", fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", p.port, p.dir), "start")
	p.running = true
}

// stop ends the server at once, as a crash would: its sessions end
// without a goodbye.
func (p *privatePostgres) stop() {
	p.t.Helper()
	if !p.running {
		return
	}
	p.running = false
	p.run("pg_ctl", "-D", filepath.Join(p.dir, "data"), "-w", "-t", "30", "-m", "immediate", "stop")
	// pg_ctl returns once the postmaster is gone; its backends may take a
	// moment more, still serving their sessions.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p.port), time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			p.t.Fatalf("PostgreSQL still accepts connections on port %d 10s after pg_ctl stop", p.port)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *privatePostgres) dsn() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
}

// TestPostgresRestartDuringIngestion indexes the local network into a
// private PostgreSQL, slowly (one block per batch, a slow node), stops
// PostgreSQL in the middle of it for a few seconds and starts it again:
// meanwhile every read answers 503, never 500, and avaindex keeps
// listening; afterwards indexing resumes by itself and reaches the node's
// tip, every stored block the node's, each height once, and the P-chain
// blocks those of a store indexed without faults.
func TestPostgresRestartDuringIngestion(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	pg := newPrivatePostgres(t)
	n := testnet.Get(t)
	begin := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// P-chain blocks to index, enough for ingestion to be under way, one
	// block per batch, when PostgreSQL stops.
	for range 10 {
		if _, err := n.PBaseTx(ctx, n.Addr, 1000); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("issued 10 P-chain transactions in %s", time.Since(begin).Round(time.Millisecond))
	pTip, err := n.PClient().GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	proxy, proxyURL := newSwitchProxy(t, n.URL)
	proxy.delay.Store(int64(50 * time.Millisecond))
	base := startService(t, proxyURL, pg.dsn(), "--ingest-batch-size", "1")

	// Stop PostgreSQL in the middle of ingestion.
	for {
		r := readyz(t, base)
		if r.Indexer.Heights["P"] >= 2 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no P-chain block indexed; /readyz says %+v", r)
		}
		time.Sleep(20 * time.Millisecond)
	}
	pg.stop()
	at := readyz503(t, base)
	if at.Indexer.Heights["P"] >= pTip {
		t.Fatalf("avaindex had indexed the whole P-chain (%d) before PostgreSQL stopped: not a restart mid-ingestion", pTip)
	}

	// Reads while it is down: 503, never 500, on the Data and Metrics APIs.
	// The node API answers as the node does when its database fails: HTTP
	// 200 with a JSON-RPC error.
	reads := []struct{ method, path, body string }{
		{"GET", "/v1/networks/local/blockchains/p-chain/blocks", ""},
		{"GET", "/v1/chains/43112/blocks", ""},
		{"GET", "/v1/networks/local/blockchains/p-chain/blocks/1", ""},
		{"POST", "/ext/bc/P", `{"jsonrpc":"2.0","id":1,"method":"platform.getHeight","params":{}}`},
		{"POST", "/ext/bc/P", `{"jsonrpc":"2.0","id":1,"method":"platform.getBlockByHeight","params":{"height":"1","encoding":"hex"}}`},
		{"GET", "/v2/chains/43112/metrics/txCount?timeInterval=day", ""},
	}
	downUntil := time.Now().Add(3 * time.Second)
	for time.Now().Before(downUntil) {
		for _, rd := range reads {
			req, err := http.NewRequestWithContext(ctx, rd.method, base+rd.path, strings.NewReader(rd.body))
			if err != nil {
				t.Fatal(err)
			}
			if rd.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("%s %s with PostgreSQL down: %v", rd.method, rd.path, err)
			}
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if strings.HasPrefix(rd.path, "/ext/") {
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"error":{"code":-32000`) {
					t.Fatalf("%s %s %s with PostgreSQL down: %d %s, want a JSON-RPC error", rd.method, rd.path, rd.body, resp.StatusCode, body)
				}
				continue
			}
			if resp.StatusCode != http.StatusServiceUnavailable {
				t.Fatalf("%s %s with PostgreSQL down: %d %s, want 503", rd.method, rd.path, resp.StatusCode, body)
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	if r := readyz503(t, base); r.Indexer.Heights["P"] > at.Indexer.Heights["P"] {
		t.Errorf("/readyz: P-chain height moved from %d to %d with PostgreSQL down", at.Indexer.Heights["P"], r.Indexer.Heights["P"])
	}

	pg.start()
	proxy.delay.Store(0)
	if _, err := n.PBaseTx(ctx, n.Addr, 1000); err != nil {
		t.Fatal(err)
	}
	w := newIngestWatch(t, ctx, base, pg.dsn())
	pTip, cTip := w.caughtUp("after PostgreSQL's restart", n)
	w.sameBlocks(n, pTip, cTip)

	// And the same P-chain blocks, with the same transactions, as a store
	// indexed from the same node without faults.
	clean := dbtest.SQLite(t)
	waitIndexed(t, startService(t, n.URL, clean), pTip, time.Minute)
	ref, err := store.Open(ctx, clean)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	pq := store.BlockQuery{Chain: internal.PChain}
	want, err := ref.BlockSummaries(ctx, pq, nil, int(pTip)+1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.st.BlockSummaries(ctx, pq, nil, int(pTip)+1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) != int(pTip)+1 {
		t.Fatalf("P-chain blocks up to %d: %d stored after the restart, %d without faults", pTip, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("P-chain block %d: %+v after the restart, %+v without faults", want[i].Height, got[i], want[i])
		}
	}
	t.Logf("PostgreSQL stopped at P-chain height %d; caught up to P %d, C %d; took %s",
		at.Indexer.Heights["P"], pTip, cTip, time.Since(begin).Round(time.Millisecond))
}

// readyz503 is /readyz, which must answer 503 (not ready) while the store
// does not.
func readyz503(t *testing.T, base string) readyzBody {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz with PostgreSQL down: %d, want 503", resp.StatusCode)
	}
	return readyz(t, base)
}
