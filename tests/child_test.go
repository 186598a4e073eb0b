package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/service"
)

// childServeEnv holds the serve flags (JSON) of a test binary re-executed
// as an avaindex process: a process of its own, which a test can SIGKILL.
const childServeEnv = "AVAINDEX_TEST_CHILD_SERVE"

// serveChild runs avaindex with the flags of childServeEnv, prints
// "LISTEN host:port" once it listens, and stops on SIGTERM.
func serveChild() int {
	var args []string
	if err := json.Unmarshal([]byte(os.Getenv(childServeEnv)), &args); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	cfg, err := config.Load("serve", args, os.Getenv, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := service.Run(ctx, cfg, log, func(a string) { fmt.Printf("LISTEN %s\n", a) }); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// child is an avaindex process started by childService.
type child struct {
	cmd  *exec.Cmd
	base string
}

// childService starts this test binary as an avaindex process against
// nodeURL on dsn with the test's fast polling and extra flags, and returns
// it once it listens. The test's end kills it.
func childService(t *testing.T, nodeURL, dsn string, extra ...string) *child {
	t.Helper()
	args := append([]string{"--node-url", nodeURL, "--db", dsn, "--listen", "127.0.0.1:0", "--poll-interval", "50ms"}, extra...)
	b, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childServeEnv+"="+string(b))
	if testing.Verbose() {
		cmd.Stderr = os.Stderr
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd}
	t.Cleanup(c.kill)
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "LISTEN "); ok {
				lines <- a
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case a := <-lines:
		c.base = "http://" + a
	case <-time.After(3 * time.Minute):
		t.Fatal("the avaindex child process did not listen within 3 minutes")
	}
	waitServing(t, c.base, 3*time.Minute)
	return c
}

// waitServing waits until avaindex at base serves the Data API, which it
// does once it knows the network (it answers 503 before).
func waitServing(t *testing.T, base string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		resp, err := http.Get(base + "/v1/chains")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("avaindex at %s did not serve within %s: %v", base, within, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill SIGKILLs the process: no shutdown, no release of anything it held.
func (c *child) kill() {
	if c.cmd.Process != nil && c.cmd.ProcessState == nil {
		_ = c.cmd.Process.Signal(syscall.SIGKILL)
		_ = c.cmd.Wait()
	}
}
