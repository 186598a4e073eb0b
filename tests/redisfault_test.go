package tests

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// requireBinary returns path when it is an executable file; otherwise the
// test is skipped, or fails under CI=true, where every binary must be there.
func requireBinary(t *testing.T, path, what string) string {
	t.Helper()
	if st, err := os.Stat(path); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not found at %s (%v)", what, path, err)
		}
		t.Skipf("SKIP: %s not found at %s (%v): this fault test does not run", what, path, err)
	}
	return path
}

// freeTCPPort is a port nothing listened on a moment ago.
func freeTCPPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// privateRedis is a redis-server of the test's own, without persistence.
type privateRedis struct {
	t    *testing.T
	bin  string
	port int
	cmd  *exec.Cmd
}

func (r *privateRedis) start() {
	r.t.Helper()
	r.cmd = exec.Command(r.bin, "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	r.cmd.Dir = r.t.TempDir()
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("starting redis-server: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", r.port), time.Second)
		if err == nil {
			_, _ = c.Write([]byte("PING\r\n"))
			_ = c.SetReadDeadline(time.Now().Add(time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "+PONG") {
				return
			}
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the private redis-server on port %d did not answer PING within 10s: %v", r.port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop kills it, and waits until its port refuses connections.
func (r *privateRedis) stop() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.cmd = nil
}

// TestRedisDownUnderSharedLimit runs two avaindex instances sharing their
// rate limits through a private redis-server, kills it and starts it again:
//
//   - before: one quota for both instances (the headers count down across
//     them, and both refuse once it is spent);
//   - Redis down: each instance goes on answering, limiting in memory with
//     a quota of its own, and /metrics says so (avaindex_rate_limit_shared
//     0, requests counted under limiter="memory");
//   - Redis back on the same port: the instances share one quota again,
//     and /metrics says so.
func TestRedisDownUnderSharedLimit(t *testing.T) {
	bin := requireBinary(t, "/usr/bin/redis-server", "redis-server")
	start := time.Now()
	r := &privateRedis{t: t, bin: bin, port: freeTCPPort(t)}
	r.start()
	t.Cleanup(r.stop)

	const quota = 4
	args := []string{"--rate-limit-redis", fmt.Sprintf("redis://127.0.0.1:%d/0", r.port),
		"--rate-limit-tier", fmt.Sprintf("anonymous:%d/1h", quota)}
	dsnA, dsnB := "sqlite:"+t.TempDir()+"/a.db", "sqlite:"+t.TempDir()+"/b.db"
	node := testnet.ClosedURL(t)
	bases := []string{startService(t, node, dsnA, args...), startService(t, node, dsnB, args...)}
	const path = "/v1/health-check"

	get := func(base string) (int, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v (an instance stopped answering)", base+path, err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header.Get("RateLimit-Remaining")
	}
	// want asks instance i once: status and remaining quota. The node is
	// down, so the health check answers 503 when the limit lets it through.
	want := func(when string, i, status int, remaining string) {
		t.Helper()
		got, rem := get(bases[i])
		if got == http.StatusServiceUnavailable {
			got = http.StatusOK
		}
		if got != status || (remaining != "" && rem != remaining) {
			t.Fatalf("%s: instance %d answered %d with RateLimit-Remaining %q, want %d and %q", when, i, got, rem, status, remaining)
		}
	}
	metric := func(name string) float64 {
		t.Helper()
		resp, err := http.Get(bases[0] + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for _, line := range strings.Split(string(body), "\n") {
			if v, ok := strings.CutPrefix(line, name+" "); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				return f
			}
		}
		return 0
	}
	// The metrics are the process's, shared by both instances and by
	// earlier runs of the test: the counter is compared with its value now.
	const memoryDecisions = `avaindex_rate_limit_decisions_total{limiter="memory"}`
	memoryBefore := metric(memoryDecisions)

	// Before: one shared quota, counted down across both instances.
	for i := range quota {
		want("Redis up", i%2, http.StatusOK, strconv.Itoa(quota-1-i))
	}
	want("Redis up, quota spent", 0, http.StatusTooManyRequests, "")
	want("Redis up, quota spent", 1, http.StatusTooManyRequests, "")
	if v := metric("avaindex_rate_limit_shared"); v != 1 {
		t.Errorf("Redis up: avaindex_rate_limit_shared %v, want 1", v)
	}
	if v := metric(memoryDecisions) - memoryBefore; v != 0 {
		t.Errorf("Redis up: %s grew by %v, want 0", memoryDecisions, v)
	}

	// Down: each instance answers, on a quota of its own in memory.
	r.stop()
	for i := range quota {
		for inst := range 2 {
			want("Redis down", inst, http.StatusOK, strconv.Itoa(quota-1-i))
		}
	}
	want("Redis down, own quota spent", 0, http.StatusTooManyRequests, "")
	want("Redis down, own quota spent", 1, http.StatusTooManyRequests, "")
	if v := metric("avaindex_rate_limit_shared"); v != 0 {
		t.Errorf("Redis down: avaindex_rate_limit_shared %v, want 0", v)
	}
	if v := metric(memoryDecisions) - memoryBefore; v < 2*quota {
		t.Errorf("Redis down: %s grew by %v, want at least %d", memoryDecisions, v, 2*quota)
	}

	// Back, empty (no persistence): once the instances try it again (every
	// 5 s), a 200 can only come from the shared quota, both in-memory ones
	// being spent; it then counts down across both instances again.
	r.start()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		status, rem := get(bases[0])
		if status != http.StatusTooManyRequests {
			if rem != strconv.Itoa(quota-1) {
				t.Fatalf("Redis back: first answer with RateLimit-Remaining %q, want %d", rem, quota-1)
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("Redis back: instance 0 still refuses after 20s (%d)", status)
		}
		time.Sleep(250 * time.Millisecond)
	}
	for ctx.Err() == nil {
		// Instance 1 may still wait out its retry delay: 429s until then.
		status, rem := get(bases[1])
		if status != http.StatusTooManyRequests {
			if rem != strconv.Itoa(quota-2) {
				t.Fatalf("Redis back: instance 1 answered with RateLimit-Remaining %q, want %d (the shared quota)", rem, quota-2)
			}
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if ctx.Err() != nil {
		t.Fatal("Redis back: instance 1 still refuses after 20s")
	}
	want("Redis back", 0, http.StatusOK, strconv.Itoa(quota-3))
	if v := metric("avaindex_rate_limit_shared"); v != 1 {
		t.Errorf("Redis back: avaindex_rate_limit_shared %v, want 1", v)
	}
	t.Logf("took %s", time.Since(start).Round(time.Millisecond))
}
