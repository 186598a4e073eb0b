package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/avaindex/avaindex/internal/apikeys"
	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/ratelimit"
	"github.com/avaindex/avaindex/internal/service"
)

const keysUsage = `usage: avaindex keys <create|list|revoke> [flags]

  create --name NAME [--tier TIER]   make a key; it is printed once, on the last line
  list                               the keys, revoked ones too
  revoke NAME                        revoke the active key named NAME

A key created or revoked takes effect within seconds on every running
avaindex that uses the same store. The store and the tiers come from the
flags, AVAINDEX_* environment and --config file that serve uses
(avaindex keys SUBCOMMAND -h lists them).
`

// keysFlags are the keys commands' own flags.
type keysFlags struct{ name, tier string }

// keysCommand is the flags and help of `keys sub`: the store's flags, and
// the tiers for create and list (which names the tiers not configured).
func keysCommand(sub string, f *keysFlags) config.Command {
	cmd := config.Command{Name: "avaindex keys " + sub, Flags: config.StoreFlags}
	switch sub {
	case "create":
		cmd.Flags |= config.TierFlags
		cmd.Usage = "usage: avaindex keys create --name NAME [--tier TIER] [flags]\n\nMakes an API key in a tier of the configuration; it is printed once, on the last line.\n"
		cmd.Extra = func(fs *flag.FlagSet) {
			fs.StringVar(&f.name, "name", "", "the key's name (required)")
			fs.StringVar(&f.tier, "tier", ratelimit.Standard, "the key's rate-limit tier")
		}
	case "list":
		cmd.Flags |= config.TierFlags
		cmd.Usage = "usage: avaindex keys list [flags]\n\nLists the keys, revoked ones too, and says which are in a tier not configured.\n"
	case "revoke":
		cmd.Usage = "usage: avaindex keys revoke [flags] NAME\n\nRevokes the active key named NAME.\n"
	}
	return cmd
}

// runKeys runs `avaindex keys ...`, writing its results to out.
func runKeys(ctx context.Context, args []string, getenv func(string) string, out, usage io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(usage, keysUsage)
		return errors.New("keys: a subcommand is required")
	}
	sub, args := args[0], args[1:]
	var f keysFlags
	switch sub {
	case "create", "list", "revoke":
	case "help", "-h", "--help":
		fmt.Fprint(out, keysUsage)
		return nil
	default:
		fmt.Fprint(usage, keysUsage)
		return fmt.Errorf("keys: unknown subcommand %q", sub)
	}
	cfg, positional, err := config.LoadCommand(keysCommand(sub, &f), args, getenv, usage)
	if err != nil {
		return err
	}
	name, tier := f.name, f.tier
	switch {
	case sub == "revoke" && len(positional) != 1:
		return errors.New("keys revoke: give the name of the key to revoke, once")
	case sub != "revoke" && len(positional) > 0:
		return fmt.Errorf("keys %s: unexpected argument %q", sub, positional[0])
	case sub == "create" && name == "":
		return errors.New("keys create: --name is required")
	}
	st, err := service.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()

	switch sub {
	case "create":
		t, ok := cfg.Access.Tiers[tier]
		key, err := apikeys.Create(ctx, st, name, tier, func(string) bool { return ok }, time.Now())
		if err != nil {
			return fmt.Errorf("keys create: %w", err)
		}
		fmt.Fprintf(out, "created API key %q, tier %s; it is shown only now, on the next line:\n%s\n", name, t, key)
	case "list":
		keys, err := st.APIKeys(ctx, true)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tTIER\tCREATED\tREVOKED")
		for _, k := range keys {
			tierText := k.Tier
			if _, ok := cfg.Access.Tiers[k.Tier]; !ok {
				tierText += " (not configured: refused)"
			}
			revoked := "-"
			if !k.Revoked.IsZero() {
				revoked = k.Revoked.Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.Name, tierText, k.Created.Format(time.RFC3339), revoked)
		}
		return tw.Flush()
	case "revoke":
		err := st.RevokeAPIKey(ctx, positional[0], time.Now())
		if errors.Is(err, derrors.NotFound) {
			return fmt.Errorf("keys revoke: no active API key named %q", positional[0])
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "revoked API key %q; running servers refuse it within seconds\n", positional[0])
	}
	return nil
}
