package testnet

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// These need no network.

func TestLockFileIsExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := lockFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	// A second lock (another open file description, as in another process)
	// must wait and give up when its context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	if _, err := lockFile(ctx, path); err == nil || !strings.Contains(err.Error(), "build lock") {
		t.Fatalf("second lock while held: err = %v, want a timeout", err)
	}
	unlock()
	unlock2, err := lockFile(context.Background(), path)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	unlock2()
}

func TestSourceHash(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/x\n\ngo 1.22\n")
	write("go.sum", "")
	write("cmd/localnet/main.go", "package main\n\nimport _ \"example.com/x/lib\"\n\nfunc main() {}\n")
	write("lib/lib.go", "package lib\n")
	write("cmd/other/main.go", "package main\n")
	h1, err := sourceHash(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	write("cmd/other/main.go", "package main // changed\n")
	if h, _ := sourceHash(ctx, root); h != h1 {
		t.Error("hash depends on a package cmd/localnet does not import")
	}
	for _, f := range []string{"go.sum", "cmd/localnet/main.go", "lib/lib.go", "go.mod"} {
		var content string
		switch f {
		case "go.mod":
			content = "module example.com/x\n\ngo 1.23\n"
		case "go.sum":
			content = "changed\n"
		default:
			b, _ := os.ReadFile(filepath.Join(root, f))
			content = string(b) + "// changed\n"
		}
		write(f, content)
		h, err := sourceHash(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		if h == h1 {
			t.Errorf("hash does not cover %s", f)
		}
		h1 = h
	}
	write("cmd/localnet/extra.go", "package main\n")
	if h, _ := sourceHash(ctx, root); h == h1 {
		t.Error("hash does not cover new files in cmd/localnet")
	}
}

func TestModuleRootHasLocalnet(t *testing.T) {
	root, err := moduleRoot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", "localnet", "main.go")); err != nil {
		t.Fatalf("module root %s: %v", root, err)
	}
	files, err := sourceFiles(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go.mod", "go.sum", filepath.Join("cmd", "localnet", "main.go")} {
		if !slices.Contains(files, filepath.Join(root, want)) {
			t.Errorf("hashed files %v lack %s", files, want)
		}
	}
}

func TestProcessStartAndStop(t *testing.T) {
	if testing.Short() {
		t.Skip(SkipMessage)
	}
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	bin, err := localnetBinary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, uri, err := startProcess(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = p.stop(StopTimeout)
		}
	}()
	n, err := describe(ctx, uri, LocalNetworkID)
	if err != nil {
		t.Fatal(err)
	}
	if n.NetworkID != LocalNetworkID || n.XChainID == n.CChainID {
		t.Errorf("network %d, X %s, C %s", n.NetworkID, n.XChainID, n.CChainID)
	}
	if _, err := os.Stat(p.dir); err != nil {
		t.Fatalf("data dir: %v", err)
	}

	start := time.Now()
	err = p.stop(StopTimeout)
	stopped = true
	if err != nil {
		t.Fatalf("stop: %v", err)
	}
	t.Logf("stopped in %s", time.Since(start).Round(time.Millisecond))
	if st := p.cmd.ProcessState; st == nil || !st.Success() {
		t.Errorf("node exit state %v, want a clean exit", st)
	}
	if _, err := os.Stat(p.dir); !os.IsNotExist(err) {
		t.Errorf("data dir %s not removed: %v", p.dir, err)
	}
	if resp, err := http.Get(uri + "/ext/health"); err == nil {
		resp.Body.Close()
		t.Errorf("node still answers at %s after stop", uri)
	}
}
