package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derive"
	"github.com/avaindex/avaindex/internal/service"
	"github.com/avaindex/avaindex/internal/store"
)

const rederiveUsage = `usage: avaindex rederive [--chain P|X|C] [--wait] [flags]

Writes a chain's derived state (the P-chain's UTXOs, stakers, subnets and
chains, L1 validators, the reward and L1 fee replays, historical rewards;
the X-chain's UTXOs and DAG txs; each one's chain metrics; the C-chain's
shared-memory UTXOs) again from what is stored of it (its blocks, the
X-chain's mirrored DAG txs, the C-chain's atomic txs), without the node, in
batches that each commit with the rederive's cursor: a rederive cut short
(a crash, Ctrl-C) resumes where it stopped, here or at the next start of
avaindex serve. It runs under the store's indexer lease; with an indexer
running it fails, or with --wait waits for the lease.

The derived state depends on the whole history (the P-chain's reward and
fee replays, the UTXOs' spends), so a chain is always rederived from its
genesis.
`

// rederiveFlags are rederive's own flags.
type rederiveFlags struct {
	chain string
	wait  bool
	batch int
}

// rederiveCommand is rederive's flags and help: the store's, the log
// level, the instance name it holds the indexer lease under, and its own.
func rederiveCommand(f *rederiveFlags) config.Command {
	return config.Command{Name: "avaindex rederive", Usage: rederiveUsage,
		Flags: config.StoreFlags | config.LogFlags | config.InstanceFlags,
		Extra: func(fs *flag.FlagSet) {
			fs.StringVar(&f.chain, "chain", "P", "the chain whose derived state to write again (P, X or C)")
			fs.BoolVar(&f.wait, "wait", false, "wait for the indexer lease instead of failing while an indexer holds it")
			fs.IntVar(&f.batch, "batch", derive.DefaultBatchSize, "blocks per transaction (a batch also ends at 16,384 txs)")
		}}
}

// runRederive runs `avaindex rederive`, telling out what it did.
func runRederive(ctx context.Context, args []string, getenv func(string) string, out, usage io.Writer) error {
	var f rederiveFlags
	cfg, positional, err := config.LoadCommand(rederiveCommand(&f), args, getenv, usage)
	if err != nil {
		return err
	}
	chain, wait, batch := f.chain, f.wait, f.batch
	c := internal.Chain(strings.ToUpper(chain))
	switch {
	case len(positional) > 0:
		return fmt.Errorf("rederive: unexpected argument %q", positional[0])
	case c != internal.PChain && c != internal.XChain && c != internal.CChain:
		return fmt.Errorf("rederive: --chain %q: only the P-chain (P), the X-chain (X) and the C-chain's atomic txs (C) can be rederived", chain)
	case batch <= 0:
		return fmt.Errorf("rederive: --batch %d: must be positive", batch)
	}
	log := newLogger(cfg.LogLevel)
	st, err := service.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()

	holder := cfg.InstanceName + " (avaindex rederive)"
	var lease *database.Lease
	for waited := false; ; waited = true {
		l, ok, err := st.TryLease(ctx, store.IndexerLease, holder)
		if err != nil {
			return fmt.Errorf("rederive: asking for the indexer lease: %w", err)
		}
		if ok {
			lease = l
			break
		}
		who, since, _ := st.LeaseHolder(ctx, store.IndexerLease)
		if !wait {
			return fmt.Errorf("rederive: the indexer lease is held by %q (since %s): an indexer runs on this store; stop it, or run with --wait",
				who, since.UTC().Format(time.RFC3339))
		}
		if !waited {
			log.Info("waiting for the indexer lease", "holder", who, "since", since)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	defer lease.Release()
	ctx = database.WithLease(ctx, lease)

	// The backfills a migration asked for first, as avaindex serve runs
	// them: a rederive's appliers read the rows they write.
	if err := derive.RunBackfills(ctx, st, log, derive.BackfillOptions{}); err != nil {
		return fmt.Errorf("rederive: %w", err)
	}
	if err := st.RequestRederive(ctx, c); err != nil {
		return err
	}
	var (
		last    store.Rederive
		batches int
	)
	start := time.Now()
	err = derive.Rederive(ctx, st, c, log, derive.RederiveOptions{BatchSize: batch,
		OnBatch: func(r store.Rederive) { last, batches = r, batches+1 }})
	if err != nil {
		if errors.Is(err, context.Canceled) && batches > 0 {
			return fmt.Errorf("rederive: stopped at the %s-chain's %s %d of %d; run it again (or avaindex serve) to resume", c, last.Phase, last.Next, last.Target)
		}
		return err
	}
	if batches == 0 {
		fmt.Fprintf(out, "nothing of the %s-chain is stored: nothing to rederive\n", c)
		return nil
	}
	fmt.Fprintf(out, "rederived the %s-chain's derived state in %s\n", c, time.Since(start).Round(time.Millisecond))
	return nil
}
