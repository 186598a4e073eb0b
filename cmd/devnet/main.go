// Command devnet starts a real single-node avalanchego local network and
// avaindex indexing it on embedded SQLite, then prints the URLs to try (see
// internal/devnet, the program it runs).
//
//	go run ./cmd/devnet [--data-dir DIR] [--listen 127.0.0.1:8080] [--demo=false]
//
// This command is small, so that `go run` starts it at once: it builds the
// program, which links avalanchego (the first build compiles it, several
// minutes; later ones take seconds), telling how the build goes, and then
// runs it in its place with the same arguments.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// program is the package built and run.
const program = "github.com/avaindex/avaindex/cmd/devnet/internal/devnet"

func main() {
	bin, err := build(os.Stderr, program, 30*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, "devnet:", err)
		os.Exit(1)
	}
	// In its place: same process, so Ctrl-C and the exit status are its.
	err = syscall.Exec(bin, append([]string{bin}, os.Args[1:]...), os.Environ())
	fmt.Fprintln(os.Stderr, "devnet: running", bin+":", err)
	os.Exit(1)
}

// build builds pkg (from the module of the working directory) into the
// user's cache directory and returns the binary's path. It writes to log
// what it does: a line first, one every `every` with the packages compiled
// so far while the build lasts, and one when it ends.
func build(log io.Writer, pkg string, every time.Duration) (string, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("devnet builds itself with the go command, which is not on PATH: %w", err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	bin := filepath.Join(cache, "avaindex", "devnet", filepath.Base(pkg))
	fmt.Fprintf(log, "devnet: building the node (avalanchego) and avaindex into %s; the first build compiles avalanchego and takes several minutes, later ones seconds...\n", bin)
	start := time.Now()
	cmd := exec.Command(goCmd, "build", "-v", "-o", bin, pkg)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("go build: %w", err)
	}
	// go build -v names each package it compiles; anything else is an error
	// message, shown if the build fails.
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	tick := time.NewTicker(every)
	defer tick.Stop()
	var compiled int
	var output []string
	for done := false; !done; {
		select {
		case l, ok := <-lines:
			if !ok {
				done = true
				break
			}
			compiled++
			output = append(output, l)
			if len(output) > 200 {
				output = output[1:]
			}
		case <-tick.C:
			fmt.Fprintf(log, "devnet: still building (%s, packages compiled: %d)...\n", time.Since(start).Round(time.Second), compiled)
		}
	}
	if err := cmd.Wait(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return "", fmt.Errorf("building %s failed (run devnet from the avaindex module, as go run ./cmd/devnet):\n%s", pkg, strings.Join(output, "\n"))
		}
		return "", fmt.Errorf("go build: %w", err)
	}
	fmt.Fprintf(log, "devnet: built in %s (packages compiled: %d); starting...\n", time.Since(start).Round(time.Second), compiled)
	return bin, nil
}
