package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/service"
)

// backupCommand is backup's flags and help: the store's flags alone.
var backupCommand = config.Command{Name: "avaindex backup", Flags: config.StoreFlags, Usage: `usage: avaindex backup [flags] PATH

Writes a consistent copy of the SQLite store (--db, or the one under
--data-dir) to the new file PATH, while avaindex may be serving and indexing
from it. Restore by pointing --db at the copy (sqlite:PATH). A PostgreSQL
store is backed up with pg_dump instead (see the README).
`}

// runBackup runs `avaindex backup PATH`, telling out what it wrote.
func runBackup(ctx context.Context, args []string, getenv func(string) string, out, usage io.Writer) error {
	cfg, positional, err := config.LoadCommand(backupCommand, args, getenv, usage)
	if err != nil {
		return err
	}
	if len(positional) != 1 || positional[0] == "" {
		fmt.Fprint(usage, backupCommand.Usage)
		return errors.New("backup: give the path of the new backup file, once")
	}
	path := positional[0]
	st, err := service.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	if err := st.Backup(ctx, path); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "backed up %s to %s (%d bytes) in %s\n", cfg.RedactedDB(), path, fi.Size(), time.Since(start).Round(time.Millisecond))
	return nil
}
