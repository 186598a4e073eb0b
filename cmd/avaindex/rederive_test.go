package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// rederive runs `avaindex rederive args...` in-process.
func rederive(env map[string]string, args ...string) (string, error) {
	var out, usage bytes.Buffer
	err := runRederive(context.Background(), args, func(k string) string { return env[k] }, &out, &usage)
	return out.String(), err
}

// TestRederiveCommand checks the command's flags and that it runs only
// under the indexer lease: refused while an indexer holds it, or waiting
// for it with --wait. The rederive itself is TestRederivePChain's (tests/).
func TestRederiveCommand(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		env := map[string]string{"AVAINDEX_DB": dsn, "AVAINDEX_LOG_LEVEL": "error"}
		for _, bad := range []struct {
			args []string
			want string
		}{
			{[]string{"--chain", "D"}, `--chain "D": only the P-chain (P), the X-chain (X) and the C-chain's atomic txs (C)`},
			{[]string{"--from", "0"}, "flag provided but not defined: -from"},
			{[]string{"--batch", "0"}, "--batch 0"},
			{[]string{"now"}, `unexpected argument "now"`},
		} {
			if out, err := rederive(env, bad.args...); err == nil || !strings.Contains(err.Error(), bad.want) {
				t.Errorf("rederive %q: %q, %v; want an error containing %q", bad.args, out, err, bad.want)
			}
		}

		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		l, ok, err := st.TryLease(ctx, store.IndexerLease, "indexer-1")
		if err != nil || !ok {
			t.Fatalf("taking the indexer lease: %v %v", ok, err)
		}
		out, err := rederive(env, "--chain", "p")
		if err == nil || !strings.Contains(err.Error(), `the indexer lease is held by "indexer-1"`) || !strings.Contains(err.Error(), "--wait") {
			t.Fatalf("rederive while an indexer holds the lease: %q, %v; want a refusal naming the holder and --wait", out, err)
		}
		if p, err := st.PendingRederives(ctx); err != nil || len(p) != 0 {
			t.Fatalf("a refused rederive left %+v (%v) pending", p, err)
		}

		type result struct {
			out string
			err error
		}
		done := make(chan result, 1)
		go func() {
			out, err := rederive(env, "--wait")
			done <- result{out, err}
		}()
		select {
		case r := <-done:
			t.Fatalf("rederive --wait returned while the lease was held: %q, %v", r.out, r.err)
		case <-time.After(1500 * time.Millisecond):
		}
		l.Release()
		select {
		case r := <-done:
			if r.err != nil || !strings.Contains(r.out, "nothing to rederive") {
				t.Fatalf("rederive --wait on an empty store: %q, %v", r.out, r.err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("rederive --wait did not take the released lease within 30s")
		}
		if p, err := st.PendingRederives(ctx); err != nil || len(p) != 0 {
			t.Fatalf("after the rederive %+v (%v) is pending", p, err)
		}
	})
}
