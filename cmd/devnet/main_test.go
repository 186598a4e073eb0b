package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// asMain makes the test binary run main() instead of the tests.
const asMain = "AVAINDEX_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runDevnet runs devnet with args and TMPDIR tmp until it prints its URLs,
// checks what it printed, calls check (when non-nil) with avaindex's URL,
// then stops it with SIGTERM and requires exit status 0.
func runDevnet(t *testing.T, tmp string, check func(base string), args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), asMain+"=1", "TMPDIR="+tmp)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		printed strings.Builder
		scanned = make(chan struct{})
		ready   = make(chan struct{}, 1)
	)
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			mu.Lock()
			printed.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if strings.HasPrefix(sc.Text(), "Ctrl-C stops both") {
				ready <- struct{}{}
			}
		}
	}()
	select {
	case <-ready:
	case <-scanned:
	case <-time.After(4 * time.Minute):
	}
	mu.Lock()
	out := printed.String()
	mu.Unlock()
	if !strings.Contains(out, "Ctrl-C stops both") {
		_ = cmd.Process.Kill()
		<-scanned
		_ = cmd.Wait()
		t.Fatalf("devnet did not print its URLs:\n%s\nstderr:\n%s", out, stderr.String())
	}
	// The funded address of the local genesis (docs/compatibility.md).
	if !strings.Contains(out, "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u") || !strings.Contains(out, "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC") {
		t.Errorf("devnet does not print the funded addresses:\n%s", out)
	}
	if check != nil {
		m := regexp.MustCompile(`(?m)^\s*avaindex\s+(http://\S+)$`).FindStringSubmatch(out)
		if m == nil {
			t.Errorf("devnet does not print avaindex's URL:\n%s", out)
		} else {
			check(m[1])
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-scanned
	if err := cmd.Wait(); err != nil {
		t.Errorf("devnet stopped by SIGTERM: %v, want exit status 0\nstderr:\n%s", err, stderr.String())
	}
}

// TestDataDir: devnet removes the temporary directory it made, and keeps
// the one --data-dir names.
func TestDataDir(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local avalanchego node")
	}
	tmp := t.TempDir()
	runDevnet(t, tmp, func(base string) {
		// The printed address holds AVAX, as avaindex indexed it.
		deadline := time.Now().Add(time.Minute)
		for {
			balance, err := pBalance(base, "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u")
			if err == nil && balance > 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("platform.getBalance of the funded address: %d, %v", balance, err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("devnet left %s in the temporary directory", filepath.Join(tmp, e.Name()))
	}

	kept := filepath.Join(t.TempDir(), "kept")
	runDevnet(t, t.TempDir(), nil, "--data-dir", kept)
	for _, sub := range []string{"node", "avaindex"} {
		if _, err := os.Stat(filepath.Join(kept, sub)); err != nil {
			t.Errorf("--data-dir %s: %v after exit, want it kept", kept, err)
		}
	}
}

// pBalance returns the balance avaindex reports for a P-chain address.
func pBalance(base, addr string) (uint64, error) {
	req := `{"jsonrpc":"2.0","id":1,"method":"platform.getBalance","params":{"addresses":["` + addr + `"]}}`
	resp, err := http.Post(base+"/ext/bc/P", "application/json", strings.NewReader(req))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var reply struct {
		Result *struct {
			Balance string `json:"balance"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
		return 0, fmt.Errorf("HTTP %d: %w", resp.StatusCode, err)
	}
	if reply.Result == nil {
		return 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, reply.Error)
	}
	return strconv.ParseUint(reply.Result.Balance, 10, 64)
}
