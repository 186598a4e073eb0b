// Command reduce writes the reduced reference OpenAPI documents that
// openapitest embeds (internal/testing/openapitest/testdata) from the full
// ones in ../shared/reference (or $AVAINDEX_REFERENCE_DIR):
//
//	go generate ./internal/testing/openapitest
//
// Run it when a reference document changes; TestReducedCopiesAreCurrent
// fails until then.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "reduce:", err)
		os.Exit(1)
	}
}

func run() error {
	from, err := openapitest.LocateReferenceDir()
	if err != nil {
		return err
	}
	root, err := openapitest.RepoRoot()
	if err != nil {
		return err
	}
	to := filepath.Join(root, "internal", "testing", "openapitest", "testdata")
	names := make([]string, 0, len(openapitest.Sources))
	for name := range openapitest.Sources {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		src := openapitest.Sources[name]
		full, err := os.ReadFile(filepath.Join(from, src))
		if err != nil {
			return fmt.Errorf("reading the reference document: %w", err)
		}
		out, err := openapitest.Reduce(src, full)
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		if err := os.WriteFile(filepath.Join(to, name), out, 0o644); err != nil {
			return fmt.Errorf("writing the reduced copy: %w", err)
		}
		fmt.Printf("%s (%d bytes) -> %s (%d bytes)\n", src, len(full), filepath.Join(to, name), len(out))
	}
	return nil
}
