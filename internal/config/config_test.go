package config

import (
	"bytes"
	"errors"
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/vms/platformvm/reward"

	"github.com/avaindex/avaindex/internal/ratelimit"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDefaults(t *testing.T) {
	c, err := Load("t", nil, env(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		NodeURL:         "http://127.0.0.1:9650",
		DB:              "sqlite:" + filepath.Join("data", "avaindex.db"),
		DataDir:         "./data",
		Listen:          "127.0.0.1:8080",
		PollInterval:    250 * time.Millisecond,
		LogLevel:        "info",
		IngestBatchSize: 1024,

		TeleporterMessenger: DefaultTeleporterMessenger,
		Access: Access{
			Tiers:                ratelimit.DefaultTiers(),
			Weights:              ratelimit.DefaultWeights(),
			RateLimitRedisPrefix: "avaindex:",
			CORSOrigins:          []string{"*"},
		},
		Prices:      Prices{RequestsPerMinute: 30, CacheTTL: time.Minute, HistoricalMinAge: 24 * time.Hour},
		Role:        RoleAll,
		NFTMetadata: NFTMetadata{IPFSGateway: "https://ipfs.io", Concurrency: 32, PerHost: 8, MaxBytes: 1 << 20, Timeout: 10 * time.Second},
		Webhooks: Webhooks{Timeout: 10 * time.Second, MaxAttempts: 12, MaxBackoff: 10 * time.Minute, Concurrency: 8, Retention: 24 * time.Hour,
			DefaultLimit: WebhookLimit{Webhooks: 10, Addresses: 10_000}},
		UsageRetention: 30 * 24 * time.Hour,
		Exports:        Exports{LinkTTL: time.Hour, MaxRows: 1_000_000, Retention: 7 * 24 * time.Hour},
	}
	host, _ := os.Hostname()
	want.InstanceName = host + ":" + strconv.Itoa(os.Getpid())
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got %+v, want %+v", c, want)
	}
}

func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "avaindex.yaml")
	if err := os.WriteFile(file, []byte("node-url: http://file:1\nlisten: 127.0.0.1:1\nlog-level: warn\nnetwork-alias: [testnet, devnet]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load("t", []string{"--config", file, "--listen", "127.0.0.1:3"},
		env(map[string]string{"AVAINDEX_LISTEN": "127.0.0.1:2", "AVAINDEX_LOG_LEVEL": "debug"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:3" {
		t.Errorf("flag must beat env and file: listen = %q", c.Listen)
	}
	if c.LogLevel != "debug" {
		t.Errorf("env must beat file: log-level = %q", c.LogLevel)
	}
	if c.NodeURL != "http://file:1" {
		t.Errorf("file must beat default: node-url = %q", c.NodeURL)
	}
	if !reflect.DeepEqual(c.NetworkAliases, []string{"testnet", "devnet"}) {
		t.Errorf("network aliases from file = %q", c.NetworkAliases)
	}
}

func TestRepeatableAlias(t *testing.T) {
	c, err := Load("t", []string{"--network-alias", "testnet", "--network-alias", "fuji"}, env(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.NetworkAliases, []string{"testnet", "fuji"}) {
		t.Errorf("aliases = %q", c.NetworkAliases)
	}
	c, err = Load("t", nil, env(map[string]string{"AVAINDEX_NETWORK_ALIAS": "testnet,fuji"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.NetworkAliases, []string{"testnet", "fuji"}) {
		t.Errorf("aliases from env = %q", c.NetworkAliases)
	}
}

func TestConfigFileFromEnv(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(file, []byte(`{"db": "postgres://u:secret@h/db"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load("t", nil, env(map[string]string{"AVAINDEX_CONFIG": file}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.DB != "postgres://u:secret@h/db" {
		t.Errorf("db = %q", c.DB)
	}
	if r := c.RedactedDB(); strings.Contains(r, "secret") {
		t.Errorf("RedactedDB leaks the password: %q", r)
	}
}

func TestRewardOverrides(t *testing.T) {
	c, err := Load("t", []string{"--stake-max-consumption-rate", "150000", "--stake-minting-period", "720h"},
		env(map[string]string{"AVAINDEX_STAKE_SUPPLY_CAP": "5"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	def := reward.Config{MaxConsumptionRate: 1, MinConsumptionRate: 2, MintingPeriod: time.Hour, SupplyCap: 3}
	want := reward.Config{MaxConsumptionRate: 150000, MinConsumptionRate: 2, MintingPeriod: 720 * time.Hour, SupplyCap: 5}
	if got := c.Rewards.Apply(def); got != want {
		t.Errorf("Apply = %+v, want %+v", got, want)
	}
	c, err = Load("t", nil, env(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Rewards.Apply(def); got != def {
		t.Errorf("no flags: Apply = %+v, want the default %+v", got, def)
	}
}

func TestErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(file, []byte("nod-url: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--node-url", "ftp://x"}, nil, "--node-url"},
		{[]string{"--db", "mysql://x"}, nil, "--db"},
		{[]string{"--poll-interval", "1ms"}, nil, "--poll-interval"},
		{[]string{"--log-level", "loud"}, nil, "--log-level"},
		{[]string{"--role", "worker"}, nil, "--role must be all, api or indexer"},
		{[]string{"--ingest-batch-size", "0"}, nil, "--ingest-batch-size"},
		{[]string{"--network-alias", "a/b"}, nil, "--network-alias"},
		{[]string{"--stake-max-consumption-rate", "1000001"}, nil, "--stake-max-consumption-rate"},
		{[]string{"--stake-minting-period", "-1h"}, nil, "--stake-minting-period"},
		{[]string{"--config", file}, nil, `unknown key "nod-url"`},
		{[]string{"--bogus"}, nil, "bogus"},
		{[]string{"extra"}, nil, "unexpected argument"},
		{[]string{"--rate-limit-tier", "pro:0/1m"}, nil, "--rate-limit-tier"},
		{[]string{"--rate-limit-weight", "GET /x=0"}, nil, "--rate-limit-weight"},
		{[]string{"--rate-limit-redis", "http://127.0.0.1:6379"}, nil, "--rate-limit-redis"},
		{[]string{"--cors-origin", "https://a.example/path"}, nil, "--cors-origin"},
		{[]string{"--cors-origin", "app.example"}, nil, "--cors-origin"},
		{[]string{"--trusted-proxy", "10.0.0.0/99"}, nil, "--trusted-proxy"},
		{nil, map[string]string{"AVAINDEX_POLL_INTERVAL": "soon"}, "AVAINDEX_POLL_INTERVAL"},
	} {
		_, err := Load("t", tc.args, env(tc.env), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%q, %v) error = %v, want one mentioning %q", tc.args, tc.env, err, tc.want)
		}
	}
}

func TestAccess(t *testing.T) {
	file := filepath.Join(t.TempDir(), "avaindex.yaml")
	if err := os.WriteFile(file, []byte("require-api-key: true\nrate-limit-tier: [pro:600/1m, gold:unlimited]\ncors-origin: https://app.example\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load("t", []string{"--config", file, "--rate-limit-tier", "anonymous:10/1s", "--rate-limit-weight", "GET /v1/networks/{network}/rewards=7",
		"--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "::1"},
		env(map[string]string{"AVAINDEX_RATE_LIMIT_REDIS": "redis://127.0.0.1:6379/2", "AVAINDEX_CORS_ORIGIN": "https://a.example,https://*.b.example"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Access
	if !a.RequireAPIKey || a.RateLimitRedis != "redis://127.0.0.1:6379/2" {
		t.Errorf("require-api-key %t, redis %q", a.RequireAPIKey, a.RateLimitRedis)
	}
	// The command line's tier list wins over the file's, and either adds to
	// the defaults or replaces one of them.
	if got := a.Tiers["anonymous"]; got != (ratelimit.Tier{Name: "anonymous", Limit: 10, Period: time.Second}) {
		t.Errorf("anonymous = %+v", got)
	}
	if _, ok := a.Tiers["pro"]; ok {
		t.Error("the file's tiers were used although the command line gave some")
	}
	if a.Tiers["standard"] != ratelimit.DefaultTiers()["standard"] {
		t.Errorf("standard = %+v, want the default", a.Tiers["standard"])
	}
	if a.Weights["GET /v1/networks/{network}/rewards"] != 7 || a.Weights["POST /v1/networks/{network}/blockchains/{blockchainId}/utxos"] != 10 {
		t.Errorf("weights = %v", a.Weights)
	}
	if !reflect.DeepEqual(a.CORSOrigins, []string{"https://a.example", "https://*.b.example"}) {
		t.Errorf("cors origins = %q", a.CORSOrigins)
	}
	if want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}; !reflect.DeepEqual(a.TrustedProxies, want) {
		t.Errorf("trusted proxies = %v", a.TrustedProxies)
	}

	c, err = Load("t", []string{"--config", file}, env(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Access.Tiers["pro"].Limit != 600 || !c.Access.Tiers["gold"].Unlimited() || !reflect.DeepEqual(c.Access.CORSOrigins, []string{"https://app.example"}) {
		t.Errorf("from the file: tiers %v, origins %q", c.Access.Tiers, c.Access.CORSOrigins)
	}
}

// TestLoadCommand: a command's own flags and arguments, anywhere among the
// shared flags; its flags come from the command line only.
func TestLoadCommand(t *testing.T) {
	var name string
	extra := func(fs *flag.FlagSet) { fs.StringVar(&name, "name", "", "") }
	cmd := Command{Name: "t", Flags: AllFlags, Extra: extra}
	c, args, err := LoadCommand(cmd, []string{"first", "--db", "sqlite:x.db", "second", "--name", "n1", "third"},
		env(map[string]string{"AVAINDEX_NAME": "from-env"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.DB != "sqlite:x.db" || name != "n1" || !reflect.DeepEqual(args, []string{"first", "second", "third"}) {
		t.Errorf("db %q, name %q, args %q", c.DB, name, args)
	}
	name = ""
	if _, _, err := LoadCommand(cmd, nil, env(map[string]string{"AVAINDEX_NAME": "from-env"}), nil); err != nil || name != "" {
		t.Errorf("the environment set a command's flag: %q, %v", name, err)
	}
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte("name: from-file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadCommand(cmd, []string{"--config", file}, env(nil), nil); err == nil || !strings.Contains(err.Error(), `unknown key "name"`) {
		t.Errorf("a command's flag in the config file: %v", err)
	}
}

// TestCommandFlags: a command's flag set has the groups it reads alone;
// the flags of other commands are refused on its command line, and
// ignored in the environment and in the config file that every command
// shares, where a key of no command stays an error.
func TestCommandFlags(t *testing.T) {
	cmd := Command{Name: "avaindex t", Usage: "usage: avaindex t [flags] PATH\n", Flags: StoreFlags | LogFlags}
	var names []string
	cmd.FlagSet().VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if want := []string{"config", "data-dir", "db", "log-level"}; !reflect.DeepEqual(names, want) {
		t.Errorf("flags %q, want %q", names, want)
	}
	var help bytes.Buffer
	if _, _, err := LoadCommand(cmd, []string{"-h"}, env(nil), &help); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	if h := help.String(); !strings.HasPrefix(h, cmd.Usage) || !strings.Contains(h, "-log-level") || strings.Contains(h, "-node-url") {
		t.Errorf("-h printed:\n%s", h)
	}
	if _, _, err := LoadCommand(cmd, []string{"--node-url", "http://x"}, env(nil), nil); err == nil || !strings.Contains(err.Error(), "node-url") {
		t.Errorf("another command's flag on the command line: %v", err)
	}
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte("db: sqlite:f.db\nnode-url: not a url\nevm-chains: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, err := LoadCommand(cmd, []string{"--config", file}, env(map[string]string{"AVAINDEX_LOG_LEVEL": "debug", "AVAINDEX_LISTEN": "::nonsense"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.DB != "sqlite:f.db" || c.LogLevel != "debug" || c.NodeURL != "http://127.0.0.1:9650" || c.Listen != "127.0.0.1:8080" {
		t.Errorf("db %q, log level %q, node URL %q, listen %q", c.DB, c.LogLevel, c.NodeURL, c.Listen)
	}
	if err := os.WriteFile(file, []byte("no-such-flag: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadCommand(cmd, []string{"--config", file}, env(nil), nil); err == nil || !strings.Contains(err.Error(), `unknown key "no-such-flag"`) {
		t.Errorf("a key of no command: %v", err)
	}
}

func TestNFTMetadataFlags(t *testing.T) {
	c, err := Load("t", []string{"--metadata-allow-private-network", "127.0.0.1", "--metadata-allow-private-network", "10.1.0.0/16",
		"--ipfs-gateway", "http://gw.local:8080", "--metadata-concurrency", "4"}, env(map[string]string{"AVAINDEX_METADATA_TIMEOUT": "2s"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := c.NFTMetadata
	if len(m.AllowPrivateNetworks) != 2 || m.AllowPrivateNetworks[0].String() != "127.0.0.1/32" || m.AllowPrivateNetworks[1].String() != "10.1.0.0/16" ||
		m.IPFSGateway != "http://gw.local:8080" || m.Concurrency != 4 || m.Timeout != 2*time.Second {
		t.Errorf("NFTMetadata = %+v", m)
	}
	for _, args := range [][]string{
		{"--metadata-allow-private-network", "localhost"},
		{"--ipfs-gateway", "ipfs://x"},
		{"--metadata-concurrency", "0"},
		{"--metadata-max-bytes", "10"},
		{"--metadata-timeout", "1ms"},
	} {
		if _, err := Load("t", args, env(nil), nil); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "")) {
			t.Errorf("%v: err %v, want one naming %s", args, err, args[0])
		}
	}
}

func TestWebhookFlags(t *testing.T) {
	c, err := Load("t", []string{"--webhook-allow-private-network", "127.0.0.1/32", "--webhook-allow-private-network", "10.0.0.0/8",
		"--webhook-limit", "standard:3:50", "--webhook-limit", "pro:100:100000"}, env(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Webhooks.AllowPrivateNetworks; len(n) != 2 || n[0].String() != "127.0.0.1/32" || n[1].String() != "10.0.0.0/8" {
		t.Errorf("networks %v", n)
	}
	for tier, want := range map[string]WebhookLimit{"standard": {3, 50}, "pro": {100, 100_000}, "other": {10, 10_000}} {
		if got := c.Webhooks.Limit(tier); got != want {
			t.Errorf("Limit(%s) = %+v, want %+v", tier, got, want)
		}
	}
	for _, bad := range []string{"standard", "standard:x:1", "standard:1", ":1:1", "standard:-1:1"} {
		if _, err := Load("t", []string{"--webhook-limit", bad}, env(nil), nil); err == nil || !strings.Contains(err.Error(), "--webhook-limit") {
			t.Errorf("--webhook-limit %s: %v", bad, err)
		}
	}
	if _, err := Load("t", []string{"--webhook-allow-private-network", "nope"}, env(nil), nil); err == nil {
		t.Error("--webhook-allow-private-network nope accepted")
	}
}
