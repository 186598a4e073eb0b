// Command avaindex indexes an avalanchego node and serves the Data API, the
// Metrics API and the node JSON-RPC API from its own store.
//
//	avaindex serve   [flags]   index the node and serve the API surfaces
//	avaindex migrate [flags]   apply the store's schema and exit
//	avaindex keys ...          create, list and revoke API keys
//	avaindex backup PATH       copy the SQLite store, online
//	avaindex rederive          derive a chain's state again from its blocks
//	avaindex version           print the module version and VCS revision
//
// Every flag can also be set as AVAINDEX_<FLAG> or in a --config file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/service"
)

const usage = `usage: avaindex <command> [flags]

commands:
  serve     index the node at --node-url and serve from the store the Data
            API (/v1/...), the Metrics API (/v1/avg_tps/..., /v2/chains/...)
            and the node API (/ext/...)
  migrate   apply the store's schema and exit
  keys      create, list and revoke API keys (avaindex keys -h)
  backup    write a consistent copy of the SQLite store to a new file, online
  rederive  write a chain's derived state again from its stored blocks
  version   print the module version and the VCS revision it was built from

Run "avaindex <command> -h" for the flags of a command. Every flag can also
be set as AVAINDEX_<FLAG> (e.g. AVAINDEX_NODE_URL) or in a --config file.
`

// serveCommand and migrateCommand are the flags and help of serve and
// migrate (the others' are beside them).
var (
	serveCommand = config.Command{Name: "avaindex serve", Flags: config.AllFlags, Usage: `usage: avaindex serve [flags]

Indexes the avalanchego node at --node-url into the store and serves from it
the Data API, the Metrics API, the node API, /healthz, /readyz, /metrics,
the status page (/) and the API reference (/docs).
`}
	migrateCommand = config.Command{Name: "avaindex migrate", Flags: config.StoreFlags | config.LogFlags, Usage: `usage: avaindex migrate [flags]

Applies the store's schema (its migrations) and exits; serve does it too
at start.
`}
)

// commands are the flags and help of every command that has flags, for
// documentation: each one's FlagSet lists the flags it reads.
func commands() []config.Command {
	return []config.Command{
		serveCommand,
		migrateCommand,
		backupCommand,
		keysCommand("create", new(keysFlags)),
		keysCommand("list", new(keysFlags)),
		keysCommand("revoke", new(keysFlags)),
		rederiveCommand(new(rederiveFlags)),
	}
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1], os.Args[2:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "avaindex:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cmd string, args []string) error {
	switch cmd {
	case "version", "-version", "--version":
		fmt.Println(versionString(readBuildInfo()))
		return nil
	case "serve", "migrate":
	case "keys":
		return runKeys(ctx, args, os.Getenv, os.Stdout, os.Stderr)
	case "backup":
		return runBackup(ctx, args, os.Getenv, os.Stdout, os.Stderr)
	case "rederive":
		return runRederive(ctx, args, os.Getenv, os.Stdout, os.Stderr)
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	default:
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
	command := serveCommand
	if cmd == "migrate" {
		command = migrateCommand
	}
	cfg, positional, err := config.LoadCommand(command, args, os.Getenv, os.Stderr)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return fmt.Errorf("%s: unexpected argument %q", cmd, positional[0])
	}
	log := newLogger(cfg.LogLevel)
	if cmd == "migrate" {
		st, err := service.OpenStore(ctx, cfg)
		if err != nil {
			return err
		}
		log.Info("schema is up to date", "db", cfg.RedactedDB())
		return st.Close()
	}
	log.Info("starting avaindex", "version", versionString(readBuildInfo()), "db", cfg.RedactedDB())
	err = service.Run(ctx, cfg, log, printURLs)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil // SIGINT or SIGTERM: a requested stop
	}
	return err
}

// printURLs tells, first thing once avaindex listens, where its pages are.
func printURLs(addr string) {
	fmt.Printf("avaindex status page: http://%[1]s/  (API reference: http://%[1]s/docs)\n", addr)
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

func readBuildInfo() *debug.BuildInfo {
	bi, _ := debug.ReadBuildInfo()
	return bi
}

// versionString describes the build from what the go command stamped in
// the binary, the one source of truth: the module version (a tag, or a
// pseudo-version from the VCS) and the VCS revision, its time and whether
// the tree was modified (go build -buildvcs, as `make build` does). A build
// without them (go run, -buildvcs=false) is "devel".
func versionString(bi *debug.BuildInfo) string {
	v := "devel"
	if bi == nil {
		return v
	}
	if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
		v = mv
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	v += " (revision " + rev
	if at != "" {
		v += " of " + at
	}
	if modified {
		v += ", modified"
	}
	return v + ")"
}
