package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/nodeapi"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// heavyCallRSSBound is the resident memory `avaindex serve` must stay
// under while one client sends heavyCalls maximum-size getBalance calls at
// once.
const (
	heavyCalls        = 20
	heavyCallRSSBound = 512 << 20
)

// TestMemoryUnderHeavyNodeCalls runs the avaindex binary over a store that
// knows its network (its node is down: the node API serves what is
// stored), sends it 20 concurrent platform.getBalance calls of a body just
// under the node API's cap from one client, and checks that the process's
// resident memory (VmHWM, its peak) stays under heavyCallRSSBound while
// other clients keep being served, each small call answered within
// seconds. It takes well under a minute.
func TestMemoryUnderHeavyNodeCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary with a few hundred MB of requests")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	bin := buildBinary(t)

	dsn := dbtest.SQLite(t)
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	network := internal.Network{ID: constants.LocalID, Name: constants.LocalName, HRP: constants.LocalHRP,
		PChainID: constants.PlatformChainID, XChainID: ids.ID{'x'}, CChainID: ids.ID{'c'}, AVAXAssetID: ids.ID{'a'}}
	b, err := json.Marshal(network)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutSettingIfAbsent(ctx, store.NetworkSetting, b); err != nil {
		t.Fatal(err)
	}
	st.Close()

	// Each client is told apart by X-Forwarded-For from a trusted proxy.
	listen := strings.TrimPrefix(testnet.ClosedURL(t), "http://")
	cmd := exec.Command(bin, "serve", "--node-url", testnet.ClosedURL(t), "--db", dsn, "--listen", listen,
		"--data-dir", filepath.Join(t.TempDir(), "data"), "--trusted-proxy", "127.0.0.1/32", "--log-level", "warn")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("avaindex stderr:\n%.4000s", stderr.String())
		}
	})
	base := "http://" + listen + "/ext/bc/P"
	client := &http.Client{Timeout: time.Minute}
	call := func(body []byte, clientIP string) (int, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base, bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", clientIP)
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		_, err = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, err
	}

	small := balanceRequest(t, 3, 1<<10)
	for {
		if status, err := call(small, "192.0.2.1"); err == nil && status == http.StatusOK {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the node API did not answer getBalance within the test's time")
		}
		time.Sleep(100 * time.Millisecond)
	}
	before := procStatus(t, cmd.Process.Pid, "VmRSS")

	heavy := balanceRequest(t, 1<<30, nodeapi.MaxRequestBytes-1<<10)
	// One client, then as many as the calls (the rate limit stops the one,
	// the bound on heavy calls at once the many).
	for _, many := range []bool{false, true} {
		start := time.Now()
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			statuses = map[int]int{}
			slowest  time.Duration
			served   int
		)
		for i := range heavyCalls {
			ip := "198.51.100.7"
			if many {
				ip = fmt.Sprintf("198.51.100.%d", 10+i)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				status, err := call(heavy, ip)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					statuses[-1]++
					return
				}
				statuses[status]++
			}()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		// Meanwhile other clients, one after the other, each from its own IP.
		for i := 0; ; i++ {
			select {
			case <-done:
			default:
				t0 := time.Now()
				status, err := call(small, fmt.Sprintf("203.0.113.%d", i%250+1))
				d := time.Since(t0)
				if err != nil || status != http.StatusOK {
					t.Errorf("another client's getBalance during the heavy calls: %d %v", status, err)
				}
				served++
				slowest = max(slowest, d)
				time.Sleep(50 * time.Millisecond)
				continue
			}
			break
		}
		peak := procStatus(t, cmd.Process.Pid, "VmHWM")
		t.Logf("%d heavy calls of %d MiB from %s in %s: statuses %v; RSS %d MiB before, peak %d MiB so far, %d MiB after; "+
			"%d other clients' calls served meanwhile, the slowest in %s",
			heavyCalls, len(heavy)>>20, map[bool]string{false: "one client", true: "as many clients"}[many],
			time.Since(start).Round(time.Millisecond), statuses, before>>20, peak>>20,
			procStatus(t, cmd.Process.Pid, "VmRSS")>>20, served, slowest.Round(time.Millisecond))
		if statuses[-1] > 0 {
			t.Errorf("%d heavy calls failed without an answer", statuses[-1])
		}
		if statuses[http.StatusOK] == 0 {
			t.Errorf("no heavy call was served: %v", statuses)
		}
		if peak > heavyCallRSSBound {
			t.Errorf("peak resident memory %d MiB, over the bound of %d MiB", peak>>20, heavyCallRSSBound>>20)
		}
		if served == 0 || slowest > 5*time.Second {
			t.Errorf("other clients: %d calls served, the slowest in %s; want each within 5 s", served, slowest)
		}
	}
}

// balanceRequest is a platform.getBalance request of up to n distinct
// random local P-chain addresses, at most size bytes.
func balanceRequest(t *testing.T, n, size int) []byte {
	t.Helper()
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","id":1,"method":"platform.getBalance","params":{"addresses":[`)
	const tail = `]}}`
	var id ids.ShortID
	for i := 0; i < n; i++ {
		if _, err := rand.Read(id[:]); err != nil {
			t.Fatal(err)
		}
		a, err := address.Format("P", constants.LocalHRP, id[:])
		if err != nil {
			t.Fatal(err)
		}
		if buf.Len()+len(a)+3+len(tail) > size {
			break
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(strconv.Quote(a))
	}
	buf.WriteString(tail)
	return buf.Bytes()
}

// procStatus is a size field of /proc/PID/status (VmRSS, VmHWM), in bytes.
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("/proc/%d/status %s: %v", pid, field, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("/proc/%d/status has no %s", pid, field)
	return 0
}
