package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestBuild: the launcher says what it builds before the build, where the
// binary goes, and how long it took once it is built; the binary runs; a
// package that does not build is an error with the compiler's words.
func TestBuild(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	var log strings.Builder
	bin, err := build(&log, "./testdata/hello", time.Millisecond)
	if err != nil {
		t.Fatalf("build: %v\n%s", err, log.String())
	}
	out := log.String()
	if !strings.HasPrefix(out, "devnet: building the node (avalanchego) and avaindex into "+bin) ||
		!strings.Contains(out, "devnet: built in ") {
		t.Errorf("the build's log:\n%s", out)
	}
	got, err := exec.Command(bin, "a", "b").Output()
	if err != nil || string(got) != "hello a b\n" {
		t.Errorf("the built binary: %q, %v", got, err)
	}

	dir := t.TempDir()
	if err := os.WriteFile(dir+"/main.go", []byte("package main\n\nfunc main() { undefinedThing() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if _, err := build(&log, dir+"/main.go", time.Hour); err == nil || !strings.Contains(err.Error(), "undefinedThing") {
		t.Errorf("a package that does not build: %v", err)
	}
}
