package main

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/apikeys"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// keys runs `avaindex keys args...` in-process and returns its output.
func keys(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	var out, usage bytes.Buffer
	err := runKeys(context.Background(), args, func(k string) string { return env[k] }, &out, &usage)
	return out.String(), err
}

// lastLine is the last line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestKeysCommands(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		// The store from the environment, as serve takes it too.
		env := map[string]string{"AVAINDEX_DB": dsn}
		out, err := keys(t, env, "create", "--name", "alice")
		if err != nil {
			t.Fatal(err)
		}
		alice := lastLine(out)
		if !strings.HasPrefix(alice, apikeys.Prefix) || strings.Contains(alice, " ") || !strings.Contains(out, "standard") {
			t.Fatalf("create printed %q: want the key alone on the last line, and the tier", out)
		}
		out, err = keys(t, nil, "create", "--db", dsn, "--tier", "read-only", "--name", "bob")
		if err != nil || !strings.HasPrefix(lastLine(out), apikeys.Prefix) || lastLine(out) == alice {
			t.Fatalf("create bob: %q, %v", out, err)
		}
		// A tier of the configuration, from a flag.
		if out, err = keys(t, env, "create", "--name", "carol", "--tier", "gold", "--rate-limit-tier", "gold:100/1m"); err != nil {
			t.Fatalf("create carol in a configured tier: %q, %v", out, err)
		}
		for _, bad := range []struct {
			args []string
			want string
		}{
			{[]string{"create", "--name", "alice"}, `"alice" exists`},
			{[]string{"create", "--name", "dave", "--tier", "gold"}, `unknown tier "gold"`},
			{[]string{"create", "--name", "no spaces"}, "must be 1 to 64"},
			{[]string{"create"}, "--name is required"},
			{[]string{"create", "--name", "x", "extra"}, "unexpected argument"},
			{[]string{"revoke"}, "give the name"},
			{[]string{"revoke", "a", "b"}, "give the name"},
			{[]string{"revoke", "nobody"}, `no active API key named "nobody"`},
			{[]string{"list", "--bogus"}, "bogus"},
			{[]string{"rotate"}, `unknown subcommand "rotate"`},
			{nil, "a subcommand is required"},
		} {
			if _, err := keys(t, env, bad.args...); err == nil || !strings.Contains(err.Error(), bad.want) {
				t.Errorf("keys %q: %v, want an error with %q", bad.args, err, bad.want)
			}
		}

		if out, err = keys(t, env, "revoke", "alice"); err != nil || !strings.Contains(out, `revoked API key "alice"`) {
			t.Fatalf("revoke: %q, %v", out, err)
		}
		if _, err = keys(t, env, "revoke", "alice"); err == nil {
			t.Error("alice revoked twice")
		}
		out, err = keys(t, env, "list")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[0], "NAME") {
			t.Fatalf("list:\n%s", out)
		}
		row := func(i int) []string { return strings.Fields(lines[i]) }
		// carol's tier is not configured without the flag: said so.
		if r := row(1); r[0] != "alice" || r[1] != "standard" || r[len(r)-1] == "-" {
			t.Errorf("alice: %q, want revoked", lines[1])
		}
		if r := row(2); r[0] != "bob" || r[1] != "read-only" || r[len(r)-1] != "-" {
			t.Errorf("bob: %q, want active read-only", lines[2])
		}
		if !strings.Contains(lines[3], "carol") || !strings.Contains(lines[3], "not configured") {
			t.Errorf("carol: %q", lines[3])
		}
		if strings.Contains(out, alice) {
			t.Error("list shows a key")
		}
	})
}

// serveProcess runs `avaindex serve args...` (the test binary as main)
// and returns its URL; it is stopped with SIGTERM when the test ends.
func serveProcess(t *testing.T, args ...string) string {
	t.Helper()
	_, url := startProcess(t, args...)
	return url
}

// startProcess runs `avaindex serve args...` (the test binary as main) and
// returns it and its URL once it listens; the test's end stops it with
// SIGTERM unless it was stopped before, and logs its stderr when the test
// failed.
func startProcess(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), asMain+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		log  strings.Builder
		done = make(chan struct{})
		urls = make(chan string, 1)
	)
	go func() {
		defer close(done)
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
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-done
		_ = cmd.Wait()
		if t.Failed() {
			mu.Lock()
			t.Logf("avaindex %q stderr:\n%s", args, log.String())
			mu.Unlock()
		}
	})
	select {
	case u := <-urls:
		return cmd, u
	case <-time.After(30 * time.Second):
		t.Fatal("avaindex serve did not log its listener within 30s")
	}
	return nil, ""
}

// statusWith is the status of GET url with key in x-data-api-key ("" for
// none), and the response's ratelimit-policy.
func statusWith(t *testing.T, url, key string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("x-data-api-key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("RateLimit-Policy")
}

// TestKeysWhileServing: keys created and revoked with the binary take
// effect within seconds on a running `avaindex serve --require-api-key`,
// with no restart. The node is down, so the Data API answers 503 to the
// calls it lets through: the answers here are the access checks'.
func TestKeysWhileServing(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		binKeys := func(args ...string) string {
			t.Helper()
			cmd := exec.CommandContext(ctx, os.Args[0], append(append([]string{"keys"}, args...), "--db", dsn)...)
			cmd.Env = append(os.Environ(), asMain+"=1")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("avaindex keys %q: %v", args, err)
			}
			return string(out)
		}
		alice := lastLine(binKeys("create", "--name", "alice"))

		base := serveProcess(t, "--node-url", testnet.ClosedURL(t), "--db", dsn, "--listen", "127.0.0.1:0", "--require-api-key",
			"--data-dir", filepath.Join(t.TempDir(), "data"))
		url := base + "/v1/networks/local/blockchains/p-chain/blocks"
		if status, _ := statusWith(t, url, ""); status != http.StatusUnauthorized {
			t.Errorf("no key with --require-api-key: %d, want 401", status)
		}
		if status, policy := statusWith(t, url, alice); status != http.StatusServiceUnavailable || !strings.Contains(policy, `name="standard"`) {
			t.Errorf("alice: %d %q, want 503 (waiting for the node) at the standard tier", status, policy)
		}

		// within waits until GET url with key answers want.
		within := func(what, key string, want int) {
			t.Helper()
			start := time.Now()
			for {
				status, _ := statusWith(t, url, key)
				if status == want {
					t.Logf("%s: %d after %s", what, want, time.Since(start).Round(10*time.Millisecond))
					return
				}
				if time.Since(start) > 5*time.Second {
					t.Fatalf("%s: still %d after 5s, want %d", what, status, want)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		bob := lastLine(binKeys("create", "--name", "bob", "--tier", "read-only"))
		within("bob created while serving", bob, http.StatusServiceUnavailable)
		binKeys("revoke", "alice")
		within("alice revoked while serving", alice, http.StatusUnauthorized)
		if status, _ := statusWith(t, url, bob); status != http.StatusServiceUnavailable {
			t.Errorf("bob after alice's revocation: %d", status)
		}
		if out := binKeys("list"); !strings.Contains(out, "alice") || !strings.Contains(out, "bob") {
			t.Errorf("list:\n%s", out)
		}
	})
}
