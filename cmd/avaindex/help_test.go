package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// runMain runs the avaindex command line args in a process of its own
// (this test binary as main) and returns its exit error and output.
func runMain(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), asMain+"=1"), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// helpFlag matches a flag's line in -h output.
var helpFlag = regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)

// TestSubcommandHelp: each command's -h shows its arguments and exactly the
// flags it reads (the lists below come from what each command's code
// uses), and the flag sets documented through commands() are the same.
func TestSubcommandHelp(t *testing.T) {
	store := []string{"config", "data-dir", "db"}
	for _, tc := range []struct {
		args  []string
		usage string
		flags []string
	}{
		// migrate opens the store and logs that the schema is up to date.
		{[]string{"migrate"}, "usage: avaindex migrate [flags]", append(store, "log-level")},
		// backup opens the store and copies it to PATH.
		{[]string{"backup"}, "usage: avaindex backup [flags] PATH", store},
		// keys create checks the tier against the configured tiers.
		{[]string{"keys", "create"}, "usage: avaindex keys create --name NAME", append(store, "name", "rate-limit-tier", "tier")},
		// keys list marks the keys of a tier not configured.
		{[]string{"keys", "list"}, "usage: avaindex keys list", append(store, "rate-limit-tier")},
		{[]string{"keys", "revoke"}, "usage: avaindex keys revoke [flags] NAME", store},
		// rederive logs, and takes the indexer lease under the instance's name.
		{[]string{"rederive"}, "usage: avaindex rederive", append(store, "batch", "chain", "instance-name", "log-level", "wait")},
	} {
		name := strings.Join(tc.args, " ")
		out, err := runMain(t, nil, append(tc.args, "-h")...)
		if err != nil {
			t.Errorf("%s -h: %v\n%s", name, err, out)
			continue
		}
		if !strings.HasPrefix(out, tc.usage) {
			t.Errorf("%s -h does not start with %q:\n%s", name, tc.usage, out)
		}
		want := slices.Sorted(slices.Values(tc.flags))
		if got := helpFlags(out); !slices.Equal(got, want) {
			t.Errorf("%s -h lists %q, want %q", name, got, want)
		}
		if got := documented(t, "avaindex "+name); !slices.Equal(got, want) {
			t.Errorf("commands() documents %q for %s, want %q", got, name, want)
		}
	}

	// serve reads every flag: the others' and its own.
	out, err := runMain(t, nil, "serve", "-h")
	if err != nil {
		t.Fatalf("serve -h: %v\n%s", err, out)
	}
	got := helpFlags(out)
	for _, f := range []string{"config", "data-dir", "db", "log-level", "instance-name", "rate-limit-tier", "node-url", "listen", "evm-rpc-url", "ipfs-gateway", "price-api-url", "role"} {
		if !slices.Contains(got, f) {
			t.Errorf("serve -h lacks -%s", f)
		}
	}
	if !slices.Equal(got, documented(t, "avaindex serve")) {
		t.Errorf("serve -h lists %q, commands() documents %q", got, documented(t, "avaindex serve"))
	}

	out, err = runMain(t, nil, "help")
	if err != nil || !strings.Contains(out, "Metrics API") || !strings.Contains(out, "Data") || !strings.Contains(out, "node API") {
		t.Errorf("avaindex help: %v, want the three surfaces named:\n%s", err, out)
	}
	// A flag of another command is refused, not silently taken.
	if out, err := runMain(t, nil, "backup", "--node-url", "http://127.0.0.1:1", filepath.Join(t.TempDir(), "b.db")); err == nil || !strings.Contains(out, "-node-url") {
		t.Errorf("backup --node-url: %v\n%s", err, out)
	}
}

// TestMigrateReadsItsFlags: the flags migrate lists have their effect.
func TestMigrateReadsItsFlags(t *testing.T) {
	dir := t.TempDir()
	out, err := runMain(t, nil, "migrate", "--data-dir", dir, "--log-level", "warn")
	if err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "avaindex.db")); err != nil {
		t.Errorf("migrate --data-dir made no store there: %v", err)
	}
	if strings.Contains(out, "schema is up to date") {
		t.Errorf("migrate --log-level warn logged at info:\n%s", out)
	}
	db := filepath.Join(dir, "other.db")
	if out, err := runMain(t, []string{"AVAINDEX_LOG_LEVEL=info"}, "migrate", "--db", "sqlite:"+db); err != nil || !strings.Contains(out, "schema is up to date") {
		t.Errorf("migrate --db: %v\n%s", err, out)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("migrate --db made no store there: %v", err)
	}
}

func helpFlags(help string) []string {
	var out []string
	for _, m := range helpFlag.FindAllStringSubmatch(help, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

// documented returns the flags commands() gives the command named name.
func documented(t *testing.T, name string) []string {
	t.Helper()
	for _, c := range commands() {
		if c.Name == name {
			var out []string
			c.FlagSet().VisitAll(func(f *flag.Flag) { out = append(out, f.Name) })
			return out
		}
	}
	t.Fatalf("commands() has no %s", name)
	return nil
}
