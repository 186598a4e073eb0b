package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/evm"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// asMain makes the test binary run main() instead of the tests, so that
// the command's exit status is tested without building it.
const asMain = "AVAINDEX_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main()
		os.Exit(0)
	}
	code := testnet.Main(m)
	if binary.path != "" {
		_ = os.RemoveAll(filepath.Dir(binary.path))
	}
	os.Exit(code)
}

var binary struct {
	once sync.Once
	path string
	out  []byte
	err  error
}

// buildBinary builds the avaindex binary once per test process, with the
// flags of `make build`.
func buildBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "avaindex-bin-")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "avaindex")
		binary.out, binary.err = exec.Command("go", "build", "-buildvcs=auto", "-o", binary.path, ".").CombinedOutput()
	})
	if binary.err != nil {
		t.Fatalf("go build: %v\n%s", binary.err, binary.out)
	}
	return binary.path
}

// TestKillDuringIngestion SIGKILLs `avaindex serve` at several points while
// it indexes the P-chain and the C-chain's EVM blocks, one block per
// transaction, restarts it each time, and checks that the store ends with
// every block exactly as the node has it: nothing lost, nothing doubled.
func TestKillDuringIngestion(t *testing.T) {
	n := testnet.Get(t)
	ctx := context.Background()
	bin := buildBinary(t)
	pc := platformvm.NewClient(n.URL)
	// Grow the P-chain so that indexing it takes a while.
	for i := 0; i < 40; i++ {
		if _, err := n.PBaseTx(ctx, n.Addr, 1000); err != nil {
			t.Fatal(err)
		}
	}
	tip, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// And the C-chain, with balances to keep.
	for i := 0; i < 20; i++ {
		if _, err := n.SendEVM(ctx, common.BigToAddress(big.NewInt(int64(0xa000+i%5))), big.NewInt(int64(1e15+i))); err != nil {
			t.Fatal(err)
		}
	}
	evmc := node.NewEVM(n.EthRPCURL())
	cTip, err := evmc.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		start := func(extra ...string) *exec.Cmd {
			args := append([]string{"serve", "--node-url", n.URL, "--db", dsn, "--listen", "127.0.0.1:0",
				"--ingest-batch-size", "1", "--poll-interval", "20ms", "--log-level", "warn"}, extra...)
			cmd := exec.Command(bin, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if cmd.ProcessState == nil {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
				}
				if t.Failed() {
					t.Logf("avaindex stderr:\n%s", stderr.String())
				}
			})
			return cmd
		}
		cursor := func() (uint64, bool) {
			h, ok, err := st.Cursor(ctx, store.ChainCursor(internal.PChain))
			if err != nil {
				t.Fatal(err)
			}
			return h, ok
		}

		midway := 0
		for round := 1; round <= 4; round++ {
			target, cTarget := tip*uint64(round)/5, cTip*uint64(round)/5
			cmd := start()
			deadline := time.Now().Add(time.Minute)
			for {
				// Whichever chain gets there first: the EVM follower may
				// start after the P-chain's is done, or before.
				c, cok, _ := st.Cursor(ctx, store.EVMCursor(n.EVMChainID))
				if h, ok := cursor(); (ok && h >= target) || (cok && c >= cTarget) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("round %d: cursor did not reach %d", round, target)
				}
				time.Sleep(time.Millisecond)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			h, _ := cursor()
			c, _, _ := st.Cursor(ctx, store.EVMCursor(n.EVMChainID))
			t.Logf("round %d: killed at cursor %d of %d, C-chain EVM %d of %d", round, h, tip, c, cTip)
			if h < tip || c < cTip {
				midway++
			}
		}
		if midway == 0 {
			t.Fatal("no kill landed during ingestion; the test proved nothing")
		}

		// A last run catches up and stops cleanly on SIGTERM. It listens
		// where the test can see it: the store may be caught up already,
		// and a SIGTERM sent before the process handles signals (which it
		// does before it listens) would kill it instead.
		addr := strings.TrimPrefix(testnet.ClosedURL(t), "http://")
		cmd := start("--listen", addr)
		deadline := time.Now().Add(time.Minute)
		for {
			resp, err := http.Get("http://" + addr + "/healthz")
			if err == nil {
				resp.Body.Close()
			}
			c, _, cerr := st.Cursor(ctx, store.EVMCursor(n.EVMChainID))
			if h, ok := cursor(); err == nil && ok && h >= tip && cerr == nil && c >= cTip {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("final run did not listen and catch up to %d (%v)", tip, err)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("avaindex did not stop cleanly on SIGTERM: %v", err)
		}

		// Every block is there, once, as the node has it.
		for h := uint64(0); h <= tip; h++ {
			b, err := st.PBlockByHeight(ctx, h)
			if err != nil {
				t.Fatalf("stored block at height %d: %v", h, err)
			}
			want, err := pc.GetBlockByHeight(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			if b.Height != h || !bytes.Equal(b.Bytes, want) {
				t.Fatalf("stored block at position %d (height %d) differs from the node's", h, b.Height)
			}
			dec, err := pchain.Decode(h, want)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Txs) != len(dec.Txs) {
				t.Fatalf("height %d: %d stored txs, node has %d", h, len(b.Txs), len(dec.Txs))
			}
			for i := range dec.Txs {
				if b.Txs[i].ID != dec.Txs[i].ID {
					t.Fatalf("height %d tx %d: %s, node has %s", h, i, b.Txs[i].ID, dec.Txs[i].ID)
				}
			}
		}
		// The C-chain's EVM blocks too: every block, tx and balance once.
		db, err := database.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		txs := 0
		for h := uint64(0); h <= cTip; h++ {
			r, err := evmc.Block(ctx, h, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			want, err := evm.Decode(&evm.Config{}, evm.Input{Block: r.Block, Receipts: r.Receipts})
			if err != nil {
				t.Fatal(err)
			}
			if got, err := st.EVMBlockHash(ctx, n.EVMChainID, h); err != nil || got != want.Hash {
				t.Fatalf("EVM block %d: stored %s, %v; the node has %s", h, got, err, want.Hash)
			}
			txs += len(want.Txs)
			bal, err := evmc.Balances(ctx, []common.Address{n.EthAddr}, h)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok, err := st.EVMNativeBalance(ctx, n.EVMChainID, n.EthAddr, h); err != nil || !ok || got.Cmp(bal[n.EthAddr]) != 0 {
				t.Fatalf("EVM block %d: balance %v, %t, %v; the node says %s", h, got, ok, err, bal[n.EthAddr])
			}
		}
		for table, want := range map[string]int{"evm_blocks": int(cTip) + 1, "evm_txs": txs} {
			var got int
			if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM "+table+" WHERE chain_id = ?", int64(n.EVMChainID)).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s: %d rows, the node has %d", table, got, want)
			}
		}
		t.Logf("%d kills landed during ingestion; %d P-chain blocks and %d EVM blocks intact", midway, tip+1, cTip+1)
	})
}

// TestSIGTERMWhileWaiting runs `avaindex serve` against a node that does
// not answer: it listens at once and says why it is not ready, and SIGTERM
// then stops it with exit status 0.
func TestSIGTERMWhileWaiting(t *testing.T) {
	nodeURL := testnet.ClosedURL(t)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "serve", "--node-url", nodeURL,
		"--db", "sqlite:"+filepath.Join(t.TempDir(), "avaindex.db"), "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), asMain+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		log     strings.Builder
		scanned = make(chan struct{})
		urls    = make(chan string, 1)
	)
	logText := func() string {
		mu.Lock()
		defer mu.Unlock()
		return log.String()
	}
	defer func() {
		if t.Failed() {
			t.Logf("avaindex stderr:\n%s", logText())
		}
	}()
	// The log names the listener's URL.
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
	}()
	var base string
	select {
	case base = <-urls:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-scanned
		_ = cmd.Wait()
		t.Fatal("avaindex did not log its listener within 20s while its node was down")
	}

	if status, body := httpGet(t, base+"/healthz"); status != http.StatusOK {
		t.Errorf("/healthz = %d %s", status, body)
	}
	if status, body := httpGet(t, base+"/readyz"); status != http.StatusServiceUnavailable || !strings.Contains(body, "waiting for the node at "+nodeURL) {
		t.Errorf("/readyz = %d %s, want 503 waiting for the node at %s", status, body, nodeURL)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-scanned // all of stderr is read before Wait closes it
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("avaindex exited with status %d (%v) on SIGTERM while waiting, want 0", code, err)
	}
	if strings.Contains(logText(), "context canceled") {
		t.Errorf("avaindex reported the requested stop as an error")
	}
}

var servingRE = regexp.MustCompile(`msg=serving url=(http://\S+)`)

func httpGet(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestVersionString(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, "devel"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{&debug.BuildInfo{
			Main:     debug.Module{Version: "v0.0.0-20260102030405-0123456789ab"},
			Settings: settings("vcs", "git", "vcs.revision", "0123456789abcdef", "vcs.time", "2026-01-02T03:04:05Z", "vcs.modified", "false"),
		}, "v0.0.0-20260102030405-0123456789ab (revision 0123456789abcdef of 2026-01-02T03:04:05Z)"},
		{&debug.BuildInfo{
			Main:     debug.Module{Version: "(devel)"},
			Settings: settings("vcs.revision", "0123456789abcdef", "vcs.modified", "true"),
		}, "devel (revision 0123456789abcdef, modified)"},
	} {
		if got := versionString(tc.bi); got != tc.want {
			t.Errorf("versionString(%+v) = %q, want %q", tc.bi, got, tc.want)
		}
	}
}

// TestVersionStamped builds avaindex as `make build` does and checks that
// `avaindex version` names the commit checked out, when the go command can
// read it from git.
func TestVersionStamped(t *testing.T) {
	bin := buildBinary(t)
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("avaindex version: %v", err)
	}
	got := strings.TrimSpace(string(out))
	// What the go command stamped, read by the go command.
	info, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	stamped := regexp.MustCompile(`(?m)^\s*build\s+vcs\.revision=(\S+)$`).FindSubmatch(info)
	head, gitErr := exec.Command("git", "rev-parse", "HEAD").Output()
	switch {
	case stamped != nil:
		if gitErr == nil && string(stamped[1]) != strings.TrimSpace(string(head)) {
			t.Errorf("the binary is stamped with revision %s, git HEAD is %s", stamped[1], head)
		}
		if !strings.Contains(got, "revision "+string(stamped[1])) {
			t.Errorf("avaindex version = %q, want it to name revision %s", got, stamped[1])
		}
	case gitErr == nil && isDir(filepath.Join(strings.TrimSpace(gitTop(t)), ".git")):
		t.Errorf("a build in a git clone carries no VCS revision:\n%s", info)
	default:
		// A git worktree (.git is a file, which the go command does not
		// read) or no git: nothing to stamp.
		t.Logf("no VCS information to stamp; avaindex version = %q", got)
		if got != "devel" {
			t.Errorf("avaindex version = %q without VCS information, want devel", got)
		}
	}
}

func gitTop(t *testing.T) string {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("git rev-parse --show-toplevel: %v", err)
	}
	return string(out)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
