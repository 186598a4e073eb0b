package testnet

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"
)

// L1NodeDirEnv names the environment variable that points at prebuilt L1
// binaries: a directory with the avalanchego v1.14.0 node as "node" and the
// subnet-evm plugin in "plugins" under its VM id (what `make l1node` writes
// into bin/l1node). When it names such a directory no build happens.
const L1NodeDirEnv = "AVAINDEX_L1NODE_DIR"

// L1BuildTimeout bounds building the L1 binaries. A cold build takes about
// 7 minutes on 2 idle cores, more on a loaded machine.
const L1BuildTimeout = 25 * time.Minute

// l1ModuleDir is the module of the L1 binaries, relative to the repository.
const l1ModuleDir = "tools/l1node"

// L1Binaries returns the node binary and the plugin directory of the L1
// node, building them if needed: once per machine and source version, in the
// user cache directory, keyed by a hash of tools/l1node's go.mod, go.sum and
// Go files, under a file lock so that concurrent test processes build once.
func L1Binaries(ctx context.Context) (nodeBin, pluginDir string, err error) {
	if d := os.Getenv(L1NodeDirEnv); d != "" {
		if isFile(filepath.Join(d, "node")) && isFile(filepath.Join(d, "plugins", SubnetEVMID.String())) {
			return filepath.Join(d, "node"), filepath.Join(d, "plugins"), nil
		}
	}
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", "", err
	}
	mod := filepath.Join(root, l1ModuleDir)
	sum, err := l1SourceHash(mod)
	if err != nil {
		return "", "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", "", fmt.Errorf("user cache dir: %w", err)
	}
	dir := filepath.Join(cache, "avaindex", "l1node-"+sum)
	nodeBin = filepath.Join(dir, "node")
	pluginDir = filepath.Join(dir, "plugins")
	if isFile(nodeBin) {
		return nodeBin, pluginDir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", "", err
	}
	unlock, err := lockFile(ctx, dir+".lock")
	if err != nil {
		return "", "", err
	}
	defer unlock()
	if isFile(nodeBin) { // built by another process while we waited
		return nodeBin, pluginDir, nil
	}
	tmp := fmt.Sprintf("%s.tmp-%d", dir, os.Getpid())
	defer os.RemoveAll(tmp)
	start := time.Now()
	fmt.Fprintf(os.Stderr, "testnet: building the L1 node and subnet-evm plugin (%s) into %s (a cold build takes minutes)\n", l1ModuleDir, dir)
	if err := BuildL1Node(ctx, mod, tmp); err != nil {
		if ctx.Err() != nil {
			return "", "", fmt.Errorf("building %s timed out after %s (retry, or set %s to a prebuilt directory): %w",
				l1ModuleDir, time.Since(start).Round(time.Second), L1NodeDirEnv, err)
		}
		return "", "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", "", err
	}
	fmt.Fprintf(os.Stderr, "testnet: built the L1 binaries in %s\n", time.Since(start).Round(time.Second))
	return nodeBin, pluginDir, nil
}

// BuildL1Node builds the module at mod (tools/l1node) into out: the node as
// out/node, the plugin as out/plugins/<subnet-evm's VM id>. Both mains are
// built in one go build with -pgo=off, so that they share one compilation
// of their dependencies (avalanchego's main would otherwise build them
// again with its default profile).
func BuildL1Node(ctx context.Context, mod, out string) error {
	bin := filepath.Join(out, "build")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-pgo=off", "-o", bin+string(filepath.Separator), "./node", "./subnetevm")
	cmd.Dir = mod
	var log bytes.Buffer
	cmd.Stdout = &log
	cmd.Stderr = &log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build in %s: %w\n%s", mod, err, tail(log.String(), 4000))
	}
	if err := os.MkdirAll(filepath.Join(out, "plugins"), 0o755); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(bin, "node"), filepath.Join(out, "node")); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(bin, "subnetevm"), filepath.Join(out, "plugins", SubnetEVMID.String())); err != nil {
		return err
	}
	return os.Remove(bin)
}

// l1SourceHash hashes the L1 module's go.mod, go.sum and Go files.
func l1SourceHash(mod string) (string, error) {
	var files []string
	err := filepath.WalkDir(mod, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (filepath.Ext(p) == ".go" || d.Name() == "go.mod" || d.Name() == "go.sum") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hashing %s: %w", mod, err)
	}
	if len(files) == 0 {
		return "", fmt.Errorf("no sources in %s", mod)
	}
	sort.Strings(files)
	return hashFiles(mod, files)
}
