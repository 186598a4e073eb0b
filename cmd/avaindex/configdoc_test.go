package main

//go:generate go test -run ^TestConfigurationDoc$ -args -update-config-doc

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var updateConfigDoc = flag.Bool("update-config-doc", false, "write docs/configuration.md from the commands' flags instead of comparing")

// configDocPath is docs/configuration.md, from this package's directory.
const configDocPath = "../../docs/configuration.md"

// TestConfigurationDoc holds docs/configuration.md equal to the flags every
// command and subcommand defines. It reads them as a user does, from each
// command's -h (the binary's own usage lists the commands), so that it
// documents whatever flag sets the commands build; `go generate
// ./cmd/avaindex` writes the file again.
func TestConfigurationDoc(t *testing.T) {
	got := renderConfigDoc(t, readCommands(t))
	if *updateConfigDoc {
		if err := os.WriteFile(configDocPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(configDocPath)
	if err != nil {
		t.Fatalf("%v; run go generate ./cmd/avaindex", err)
	}
	if string(want) != got {
		t.Errorf("docs/configuration.md is not what the flags say; run go generate ./cmd/avaindex\n%s", firstDifference(string(want), got))
	}
}

// TestParseFlagHelp checks the reading of -h on flag.PrintDefaults' own
// output, so that a change of its format shows here first.
func TestParseFlagHelp(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("name", "", "the key's name (required)")
	fs.Int("batch", 256, "blocks per transaction")
	fs.Bool("wait", false, "wait for the lease\nthen go on")
	fs.String("chain", "P", "the chain (P, X or C)")
	fs.String("db", "", "store (default sqlite:<data-dir>/avaindex.db)")
	fs.String("key-header", "", "header (default x-a for a pro host, else x-b)")
	fs.Func("tag", "a tag (repeatable)", func(string) error { return nil })
	var out strings.Builder
	fs.SetOutput(&out)
	fs.PrintDefaults()
	got, err := parseFlagHelp(out.String())
	if err != nil {
		t.Fatal(err)
	}
	want := []docFlag{
		{name: "batch", typ: "int", def: "256", usage: "blocks per transaction"},
		{name: "chain", typ: "string", def: `"P"`, usage: "the chain (P, X or C)"},
		{name: "db", typ: "string", def: "sqlite:<data-dir>/avaindex.db", usage: "store"},
		{name: "key-header", typ: "string", usage: "header (default x-a for a pro host, else x-b)"},
		{name: "name", typ: "string", usage: "the key's name (required)"},
		{name: "tag", typ: "list", usage: "a tag (repeatable)"},
		{name: "wait", typ: "bool", usage: "wait for the lease then go on"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("parsed\n%q\nwant\n%q\nfrom\n%s", got, want, out.String())
	}
}

// docCommand is a command line's flags as its -h shows them.
type docCommand struct {
	args  []string // e.g. ["keys", "create"]
	flags []docFlag
}

type docFlag struct{ name, typ, def, usage string }

// avaindexHelp runs this package's main with args (the test binary re-runs
// itself as the command, see TestMain) and returns what it printed, in an
// environment without AVAINDEX_* settings.
func avaindexHelp(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = []string{asMain + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("avaindex %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

var (
	commandLine    = regexp.MustCompile(`^  ([a-z][a-z-]*)\s`)
	subcommandLine = regexp.MustCompile(`(?m)^usage: avaindex ([a-z-]+) <([a-z|-]+)>`)
)

// readCommands lists the commands of the binary's usage and the
// subcommands of those whose -h names them, with each one's flags.
func readCommands(t *testing.T) []docCommand {
	t.Helper()
	var names []string
	inCommands := false
	for _, line := range strings.Split(avaindexHelp(t, "help"), "\n") {
		switch {
		case line == "commands:":
			inCommands = true
		case inCommands && line == "":
			inCommands = false
		case inCommands:
			if m := commandLine.FindStringSubmatch(line); m != nil {
				names = append(names, m[1])
			}
		}
	}
	if !slices.Contains(names, "serve") {
		t.Fatalf("avaindex help lists no serve command among %q", names)
	}
	var cmds []docCommand
	var read func(args ...string)
	read = func(args ...string) {
		help := avaindexHelp(t, append(args, "-h")...)
		if m := subcommandLine.FindStringSubmatch(help); m != nil && len(args) == 1 && m[1] == args[0] {
			for _, sub := range strings.Split(m[2], "|") {
				read(args[0], sub)
			}
			return
		}
		flags, err := parseFlagHelp(help)
		if err != nil {
			t.Fatalf("avaindex %s -h: %v", strings.Join(args, " "), err)
		}
		cmds = append(cmds, docCommand{args: args, flags: flags})
	}
	for _, n := range names {
		read(n)
	}
	return cmds
}

var (
	// flagHeader is a flag's first line in flag.PrintDefaults: its name,
	// then its type, or a tab and its usage when the name is one letter.
	flagHeader = regexp.MustCompile(`^  -([^\s=]+)(?: ([^\t]+))?(?:\t(.*))?$`)
	// trailingDefault is the default PrintDefaults appends to the usage; a
	// usage may name its own default the same way ("(default host:pid)")
	// when the flag's zero value stands for it. A parenthesis with spaces
	// is prose, and stays in the usage.
	trailingDefault = regexp.MustCompile(`^(.*) \(default ("[^"]*"|[^\s()]+)\)$`)
)

// parseFlagHelp reads the flags out of a command's -h, as printed by
// flag.PrintDefaults, sorted by name.
func parseFlagHelp(help string) ([]docFlag, error) {
	var flags []docFlag
	for _, line := range strings.Split(help, "\n") {
		if m := flagHeader.FindStringSubmatch(line); m != nil {
			typ := m[2]
			if typ == "" {
				typ = "bool"
			}
			flags = append(flags, docFlag{name: m[1], typ: typ, usage: m[3]})
			continue
		}
		if rest, ok := strings.CutPrefix(line, "    \t"); ok {
			if len(flags) == 0 {
				return nil, fmt.Errorf("usage text %q before any flag", line)
			}
			f := &flags[len(flags)-1]
			f.usage = strings.TrimSpace(f.usage + " " + rest)
			continue
		}
		if strings.HasPrefix(line, "  -") {
			return nil, fmt.Errorf("unreadable flag line %q", line)
		}
	}
	for i := range flags {
		if m := trailingDefault.FindStringSubmatch(flags[i].usage); m != nil {
			flags[i].usage, flags[i].def = m[1], m[2]
		}
		// A flag.Var shows as "value"; a repeatable one takes a list.
		if flags[i].typ == "value" && strings.Contains(flags[i].usage, "repeatable") {
			flags[i].typ = "list"
		}
	}
	slices.SortFunc(flags, func(a, b docFlag) int { return strings.Compare(a.name, b.name) })
	return flags, nil
}

const configDocIntro = `# Configuration

<!-- Code generated by TestConfigurationDoc (go generate ./cmd/avaindex) from
each command's -h; DO NOT EDIT. The prose is in cmd/avaindex/configdoc_test.go. -->

avaindex is one binary, ` + "`avaindex`" + `, with the commands below. Every flag of
` + "`serve`" + ` can be set in three ways; the first that sets it wins:

1. on the command line: ` + "`--node-url http://127.0.0.1:9650`" + `;
2. in the environment, as ` + "`AVAINDEX_`" + ` and the flag's name in upper case with
   ` + "`_`" + ` for ` + "`-`" + ` (` + "`AVAINDEX_NODE_URL`" + `); a repeatable flag takes a comma-separated
   list (` + "`AVAINDEX_NETWORK_ALIAS=testnet,devnet`" + `);
3. in a YAML or JSON file named by ` + "`--config`" + ` (or ` + "`AVAINDEX_CONFIG`" + `), whose keys
   are the flags' names and whose values are a value or, for a repeatable
   flag, a list; an unknown key stops avaindex at start.

The config file also takes three keys that are no flags: ` + "`evm-chains`" + ` and
` + "`c-chain`" + ` describe the EVM chains ([EVM chains](api/evm.md#configuring-the-chains)),
and ` + "`price-coins`" + ` maps assets and tokens to a price feed's coin ids
([Prices](api/evm.md#prices)).

The other commands read the store and its settings from serve's flags that
they take, with the same environment and config file, so that they act on
the store ` + "`serve`" + ` uses. A flag of a command's own (not one of serve's) is
read from the command line only.
`

// renderConfigDoc writes docs/configuration.md from the commands' flags.
func renderConfigDoc(t *testing.T, cmds []docCommand) string {
	t.Helper()
	var serve []docFlag
	for _, c := range cmds {
		if len(c.args) == 1 && c.args[0] == "serve" {
			serve = c.flags
		}
	}
	if len(serve) == 0 {
		t.Fatal("avaindex serve -h shows no flags")
	}
	var b strings.Builder
	b.WriteString(configDocIntro)
	for _, c := range cmds {
		name := "avaindex " + strings.Join(c.args, " ")
		fmt.Fprintf(&b, "\n## %s\n\n", name)
		if c.args[0] == "serve" {
			b.WriteString("| flag | type | default | environment | meaning |\n|---|---|---|---|---|\n")
			for _, f := range c.flags {
				env := "`AVAINDEX_" + strings.ToUpper(strings.ReplaceAll(f.name, "-", "_")) + "`"
				fmt.Fprintf(&b, "| `--%s` | %s | %s | %s | %s |\n", f.name, f.typ, code(f.def), env, cell(f.usage))
			}
			continue
		}
		var shared []string
		var own []docFlag
		for _, f := range c.flags {
			if slices.ContainsFunc(serve, func(s docFlag) bool { return s.name == f.name }) {
				shared = append(shared, "`--"+f.name+"`")
			} else {
				own = append(own, f)
			}
		}
		switch {
		case len(c.flags) == 0:
			b.WriteString("No flags.\n")
		case len(shared) == len(serve):
			b.WriteString("Takes every flag of [`avaindex serve`](#avaindex-serve).\n")
		case len(shared) > 0:
			fmt.Fprintf(&b, "Takes these flags of [`avaindex serve`](#avaindex-serve): %s.\n", strings.Join(shared, ", "))
		}
		if len(own) > 0 {
			if len(c.flags) > len(own) {
				b.WriteString("\n")
			}
			b.WriteString("Its own flags, on the command line only:\n\n| flag | type | default | meaning |\n|---|---|---|---|\n")
			for _, f := range own {
				fmt.Fprintf(&b, "| `--%s` | %s | %s | %s |\n", f.name, f.typ, code(f.def), cell(f.usage))
			}
		}
	}
	return b.String()
}

// code formats a default value for a table cell.
func code(v string) string {
	if v == "" {
		return ""
	}
	return "`" + strings.ReplaceAll(v, "`", "'") + "`"
}

// cell escapes a usage text for a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// firstDifference shows the first line where want and got differ.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  file:  %q\n  flags: %q", i+1, wl, gl)
		}
	}
	return ""
}
