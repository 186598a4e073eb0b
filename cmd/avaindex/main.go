// Command avaindex indexes an avalanchego node and serves the Data API, the
// Metrics API and the node JSON-RPC API from its own store.
//
//	avaindex serve   [flags]   index the node and serve all surfaces
//	avaindex migrate [flags]   apply the store's schema and exit
//	avaindex version           print the version
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

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

const usage = `usage: avaindex <command> [flags]

commands:
  serve     index the node at --node-url and serve the Data API, Metrics API and node API
  migrate   apply the store's schema and exit
  version   print the version

Run "avaindex <command> -h" for the flags of a command.
`

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
		fmt.Println(versionString())
		return nil
	case "serve", "migrate":
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	default:
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
	cfg, err := config.Load("avaindex "+cmd, args, os.Getenv, os.Stderr)
	if err != nil {
		return err
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
	log.Info("starting avaindex", "version", versionString(), "db", cfg.RedactedDB())
	return service.Run(ctx, cfg, log, nil)
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
