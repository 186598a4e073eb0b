package testnet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

// BinaryEnv names the environment variable that points at a prebuilt
// localnet binary. When it names an existing file no build happens.
const BinaryEnv = "AVAINDEX_LOCALNET_BIN"

// localnetBinary returns the path of the localnet binary, building it if
// needed. Builds are cached under the user cache directory, keyed by a hash
// of go.mod, go.sum and the localnet sources (see sourceHash), and guarded by an exclusive
// file lock so that concurrent test processes build it only once.
func localnetBinary(ctx context.Context) (string, error) {
	if p := os.Getenv(BinaryEnv); p != "" {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}

	root, err := moduleRoot(ctx)
	if err != nil {
		return "", err
	}
	sum, err := sourceHash(ctx, root)
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("user cache dir: %w", err)
	}
	dir := filepath.Join(cache, "avaindex")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "localnet-"+sum)
	if isFile(bin) {
		return bin, nil
	}

	unlock, err := lockFile(ctx, bin+".lock")
	if err != nil {
		return "", err
	}
	defer unlock()

	// Another process may have finished the build while we waited.
	if isFile(bin) {
		return bin, nil
	}
	tmp := fmt.Sprintf("%s.tmp-%d", bin, os.Getpid())
	defer os.Remove(tmp)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", tmp, "./cmd/localnet")
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	fmt.Fprintf(os.Stderr, "testnet: building ./cmd/localnet into %s (a cold build takes minutes)\n", bin)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("building ./cmd/localnet timed out after %s (a cold build takes several minutes; "+
				"retry, or set %s to a prebuilt binary): %w", time.Since(start).Round(time.Second), BinaryEnv, ctx.Err())
		}
		return "", fmt.Errorf("go build ./cmd/localnet: %w\n%s", err, tail(out.String(), 4000))
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	return bin, nil
}

// moduleRoot returns the directory of the main module's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("go env GOMOD: not inside a Go module")
	}
	return filepath.Dir(gomod), nil
}

// sourceHash hashes everything the localnet binary is built from that can
// change within this repository: go.mod, go.sum, cmd/localnet/*.go and the
// Go files of every package of this module that cmd/localnet imports.
func sourceHash(ctx context.Context, root string) (string, error) {
	files, err := sourceFiles(ctx, root)
	if err != nil {
		return "", err
	}
	return hashFiles(root, files)
}

// hashFiles hashes the names (relative to root) and contents of files, in
// their order, into a short hex key of a build cache.
func hashFiles(root string, files []string) (string, error) {
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel, err := filepath.Rel(root, f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

// sourceFiles lists the files sourceHash covers, sorted and without
// duplicates.
func sourceFiles(ctx context.Context, root string) ([]string, error) {
	srcs, err := filepath.Glob(filepath.Join(root, "cmd", "localnet", "*.go"))
	if err != nil {
		return nil, err
	}
	if len(srcs) == 0 {
		return nil, fmt.Errorf("no Go files in %s", filepath.Join(root, "cmd", "localnet"))
	}
	files := append([]string{filepath.Join(root, "go.mod"), filepath.Join(root, "go.sum")}, srcs...)

	// The in-module packages cmd/localnet depends on.
	cmd := exec.CommandContext(ctx, "go", "list", "-e", "-deps", "-f",
		`{{if .Module}}{{if .Module.Main}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}`+
			`{{range .CgoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .EmbedFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{end}}{{end}}`,
		"./cmd/localnet")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps ./cmd/localnet: %w", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			files = append(files, filepath.FromSlash(line))
		}
	}
	sort.Strings(files)
	return slices.Compact(files), nil
}

// lockFile takes an exclusive flock on path, polling so that ctx bounds the
// wait. The returned function releases it.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for the build lock %s: %w", path, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// tail returns at most the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// tailFile returns at most the last n bytes of the file at path.
func tailFile(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > n {
		if _, err := f.Seek(-n, io.SeekEnd); err != nil {
			return ""
		}
	}
	b, _ := io.ReadAll(f)
	return string(b)
}
