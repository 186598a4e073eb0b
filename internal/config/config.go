// Package config holds avaindex's one configuration struct and loads it
// from, in order of precedence: command-line flags, AVAINDEX_<FLAG>
// environment variables, a YAML or JSON file (--config), and defaults.
//
// The config file's structured keys are no flags: evm-chains and c-chain
// describe the EVM chains (evm.go), price-coins the price feed's coin ids
// (prices.go). docs/configuration.md lists every flag; a test in
// cmd/avaindex holds it equal to the commands' flags.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm/reward"
	"gopkg.in/yaml.v3"

	"github.com/avaindex/avaindex/internal/ratelimit"
)

// Config is the configuration of `avaindex serve` and `avaindex migrate`.
type Config struct {
	// NodeURL is the avalanchego node to index.
	NodeURL string
	// DB is the store: "sqlite:PATH" or "postgres://...". Empty means
	// sqlite:<DataDir>/avaindex.db.
	DB string
	// DataDir holds the SQLite database by default.
	DataDir string
	// Listen is the address of the one HTTP listener.
	Listen string
	// NetworkAliases are extra names under which the Data API answers for
	// the indexed network in its {network} path segment.
	NetworkAliases []string
	// PollInterval is how often the indexer asks the node for new blocks.
	PollInterval time.Duration
	// LogLevel is debug, info, warn or error.
	LogLevel string
	// GenesisFile is the avalanchego genesis file of a custom network, whose
	// genesis UTXOs and validators are in no block; mainnet, fuji and local
	// need none.
	GenesisFile string
	// IngestBatchSize is how many blocks the indexer commits per database
	// transaction.
	IngestBatchSize int
	// Rewards overrides the primary network's staking reward configuration,
	// for a node that runs with avalanchego's --stake-* reward flags.
	Rewards RewardOverrides

	// EVMChains are the EVM chains served beside the node's C-chain: the
	// config file's evm-chains list, then one entry per --evm-rpc-url.
	EVMChains []EVMChain
	// CChain is the C-chain's metadata (config file key c-chain); its RPC
	// is always the node's.
	CChain EVMChain
	// DiscoverEVMVMIDs are the VMs whose chains on the indexed P-chain are
	// served without configuration when the node serves their RPC; nil
	// means subnet-evm's, empty (--evm-vm-id none) none.
	DiscoverEVMVMIDs []ids.ID
	// evmVMIDs are the --evm-vm-id values, parsed into DiscoverEVMVMIDs.
	evmVMIDs []string
	// TeleporterMessenger is the TeleporterMessenger contract whose
	// messages are indexed on every EVM chain.
	TeleporterMessenger string
	// ContractMetadataFiles are token-list style files of curated contract
	// metadata (logos, descriptions, links), served by the contract
	// metadata endpoints.
	ContractMetadataFiles []string
	// Access is who may call the API surfaces, how much, and from which
	// web pages.
	Access Access
	// Prices is the price feed (prices.go).
	Prices Prices
	// Role is what this instance does: RoleAll (serve, and index while it
	// holds the store's indexer lease), RoleAPI (serve only) or
	// RoleIndexer (index while it holds the lease; only the operational
	// routes are served).
	Role string
	// InstanceName names this instance in /readyz and in the indexer
	// lease's record; default host:pid.
	InstanceName string
	// NFTMetadata is how NFT metadata is fetched.
	NFTMetadata NFTMetadata
	// Webhooks is how webhook events are delivered, and how many
	// webhooks a key may have.
	Webhooks Webhooks
	// SpamTokens are the ERC-20 tokens always or never spam.
	SpamTokens SpamTokens
	// BTCbBridges are the BTC.b contracts the Avalanche Bridge mints and
	// burns, per EVM chain (the Metrics API's getAddressesByBtcbBridged).
	BTCbBridges []TokenRef
	// UsageRetention is how long the recorded requests (the usage
	// operations' data, internal/usage) are kept; 0 keeps them forever.
	UsageRetention time.Duration
	// Exports is how transaction exports run and are downloaded.
	Exports Exports
}

// Exports configures the transaction export operations and their worker
// (internal/exports).
type Exports struct {
	// LinkTTL is how long a download link is valid.
	LinkTTL time.Duration
	// MaxRows bounds one export's rows.
	MaxRows int64
	// Retention is how long a finished export's file is kept; 0 keeps
	// it forever.
	Retention time.Duration
}

// Webhooks configures the webhook endpoints and the delivery worker
// (internal/webhooks).
type Webhooks struct {
	// AllowPrivateNetworks are the non-public networks (loopback,
	// private, link-local...) webhook URLs may reach; none by default.
	AllowPrivateNetworks []netip.Prefix
	// Timeout bounds one delivery request.
	Timeout time.Duration
	// MaxAttempts is how many failed deliveries in a row turn a webhook
	// inactive; MaxBackoff bounds the wait between two.
	MaxAttempts int
	MaxBackoff  time.Duration
	// Concurrency is how many webhooks an instance delivers to at once.
	Concurrency int
	// Retention is how long delivered events stay for the event stream.
	Retention time.Duration
	// Limits are the per-tier bounds, by tier name (--webhook-limit);
	// DefaultLimit for a tier not named.
	Limits       map[string]WebhookLimit
	DefaultLimit WebhookLimit
}

// WebhookLimit bounds one API key's webhooks.
type WebhookLimit struct {
	// Webhooks is how many webhooks a key may have; Addresses how many
	// addresses one webhook may watch.
	Webhooks, Addresses int
}

// Limit is tier's limit.
func (w Webhooks) Limit(tier string) WebhookLimit {
	if l, ok := w.Limits[tier]; ok {
		return l
	}
	return w.DefaultLimit
}

// parseWebhookLimit parses TIER:WEBHOOKS:ADDRESSES.
func parseWebhookLimit(v string) (string, WebhookLimit, error) {
	parts := strings.Split(v, ":")
	if len(parts) != 3 || parts[0] == "" {
		return "", WebhookLimit{}, fmt.Errorf("%q: want TIER:WEBHOOKS:ADDRESSES, e.g. standard:10:10000", v)
	}
	var l WebhookLimit
	if _, err := fmt.Sscanf(parts[1]+" "+parts[2], "%d %d", &l.Webhooks, &l.Addresses); err != nil || l.Webhooks < 0 || l.Addresses < 0 {
		return "", WebhookLimit{}, fmt.Errorf("%q: WEBHOOKS and ADDRESSES must be counts", v)
	}
	return parts[0], l, nil
}

// NFTMetadata configures the NFT metadata worker (internal/nftmeta).
type NFTMetadata struct {
	// IPFSGateway serves ipfs:// token URIs.
	IPFSGateway string
	// AllowPrivateNetworks are the non-public networks (loopback,
	// private, link-local...) token URIs may reach; none by default.
	AllowPrivateNetworks []netip.Prefix
	// Concurrency bounds the fetches in flight, PerHost those to one host.
	Concurrency int
	PerHost     int
	// MaxBytes caps a metadata document; Timeout a fetch.
	MaxBytes int64
	Timeout  time.Duration
}

// The roles of an instance (--role).
const (
	RoleAll     = "all"
	RoleAPI     = "api"
	RoleIndexer = "indexer"
)

// Access configures API keys, rate limits and CORS.
type Access struct {
	// RequireAPIKey refuses Data API calls without a key (401).
	RequireAPIKey bool
	// Tiers are the rate-limit tiers by name: ratelimit.DefaultTiers,
	// replaced or added to by --rate-limit-tier.
	Tiers map[string]ratelimit.Tier
	// Weights are the routes' costs in units by http.ServeMux pattern:
	// ratelimit.DefaultWeights and --rate-limit-weight; any other route
	// costs 1.
	Weights map[string]int
	// RateLimitRedis, when set, is the Redis (redis://...) through which
	// every instance using it and RateLimitRedisPrefix shares the limits.
	RateLimitRedis       string
	RateLimitRedisPrefix string
	// CORSOrigins are the web origins whose pages may call the Data and
	// Metrics APIs: "*" (the default) for any, or scheme://host[:port],
	// whose host may start with "*." for any subdomain.
	CORSOrigins []string
	// TrustedProxies are the networks of reverse proxies whose
	// X-Forwarded-For names the client, for the per-IP limits.
	TrustedProxies []netip.Prefix
}

// RewardOverrides are avalanchego's reward flags; a zero field keeps the
// network's default.
type RewardOverrides struct {
	MaxConsumptionRate uint64
	MinConsumptionRate uint64
	MintingPeriod      time.Duration
	SupplyCap          uint64
}

// Apply returns def with the overridden fields replaced.
func (o RewardOverrides) Apply(def reward.Config) reward.Config {
	if o.MaxConsumptionRate != 0 {
		def.MaxConsumptionRate = o.MaxConsumptionRate
	}
	if o.MinConsumptionRate != 0 {
		def.MinConsumptionRate = o.MinConsumptionRate
	}
	if o.MintingPeriod != 0 {
		def.MintingPeriod = o.MintingPeriod
	}
	if o.SupplyCap != 0 {
		def.SupplyCap = o.SupplyCap
	}
	return def
}

// EnvPrefix prefixes the environment variable of every flag.
const EnvPrefix = "AVAINDEX_"

// Flags are groups of flags, chosen by what a command reads: a command's
// flag set, and so its -h, has its groups alone.
type Flags uint

const (
	// StoreFlags: --config, --db and --data-dir, the store's.
	StoreFlags Flags = 1 << iota
	// LogFlags: --log-level.
	LogFlags
	// InstanceFlags: --instance-name.
	InstanceFlags
	// TierFlags: --rate-limit-tier, the tiers API keys are created in.
	TierFlags
	// ServeFlags: every other flag, which serve alone reads.
	ServeFlags
	// AllFlags are serve's.
	AllFlags = StoreFlags | LogFlags | InstanceFlags | TierFlags | ServeFlags
)

// Command is a command's flags and help.
type Command struct {
	// Name is the command as typed, e.g. "avaindex backup".
	Name string
	// Usage is printed on -h before the flags; default "usage: Name [flags]".
	Usage string
	// Flags are the groups of shared flags the command reads (also from
	// the environment and the config file).
	Flags Flags
	// Extra, when non-nil, defines the command's own flags, set on the
	// command line only.
	Extra func(*flag.FlagSet)
}

// FlagSet returns cmd's flag set with its defaults, bound to a
// configuration of its own: the flags its -h lists, for documentation.
func (cmd Command) FlagSet() *flag.FlagSet {
	return new(loader).flagSet(cmd, io.Discard)
}

// loader holds a Config and the raw values of the flags parsed after the
// others.
type loader struct {
	c                                                             Config
	configFile                                                    string
	evmRPCURLs, tiers, weights, proxies, priceCoins, metaNetworks stringList
	webhookNetworks, webhookLimits, spamAllow, spamDeny           stringList
	btcbBridges                                                   stringList
}

// flagSet defines cmd's flags over l; -h writes to out.
func (l *loader) flagSet(cmd Command, out io.Writer) *flag.FlagSet {
	c := &l.c
	fs := flag.NewFlagSet(cmd.Name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		if cmd.Usage == "" {
			fmt.Fprintf(out, "usage: %s [flags]\n", cmd.Name)
		} else {
			fmt.Fprint(out, cmd.Usage)
		}
		fmt.Fprintln(out, "\nflags:")
		fs.PrintDefaults()
	}
	if cmd.Extra != nil {
		cmd.Extra(fs)
	}
	if cmd.Flags&StoreFlags != 0 {
		fs.StringVar(&l.configFile, "config", "", "YAML or JSON file whose keys are flag names")
		fs.StringVar(&c.DB, "db", "", "store: sqlite:PATH or postgres://... (default sqlite:<data-dir>/avaindex.db)")
		fs.StringVar(&c.DataDir, "data-dir", "./data", "directory of the embedded SQLite store")
	} else {
		c.DataDir = "./data"
	}
	if cmd.Flags&LogFlags != 0 {
		fs.StringVar(&c.LogLevel, "log-level", "info", "log level: debug, info, warn or error")
	} else {
		c.LogLevel = "info"
	}
	if cmd.Flags&InstanceFlags != 0 {
		fs.StringVar(&c.InstanceName, "instance-name", "", "this instance's name in /readyz and the indexer lease (default host:pid)")
	}
	if cmd.Flags&TierFlags != 0 {
		fs.Var(&l.tiers, "rate-limit-tier", "a rate-limit tier NAME:LIMIT/PERIOD[:read-only] or NAME:unlimited, e.g. pro:60000/1m (repeatable; replaces a default tier of that name)")
	}
	if cmd.Flags&ServeFlags != 0 {
		l.serveFlags(fs)
	} else {
		l.serveFlags(flag.NewFlagSet("defaults", flag.ContinueOnError)) // their defaults, which validate checks
	}
	return fs
}

// serveFlags defines the flags serve alone reads.
func (l *loader) serveFlags(fs *flag.FlagSet) {
	c := &l.c
	fs.StringVar(&c.NodeURL, "node-url", "http://127.0.0.1:9650", "URL of the avalanchego node to index")
	fs.StringVar(&c.Listen, "listen", "127.0.0.1:8080", "address of the HTTP listener (Data API, Metrics API, node API, health and metrics)")
	fs.Var((*stringList)(&c.NetworkAliases), "network-alias", "extra {network} name for the indexed network, e.g. testnet (repeatable)")
	fs.DurationVar(&c.PollInterval, "poll-interval", 250*time.Millisecond, "how often to ask the node for new blocks")
	fs.StringVar(&c.GenesisFile, "genesis-file", "", "genesis file of a custom network (the node's --genesis-file)")
	// ingest.DefaultBatchSize, which this package cannot import (a test in
	// service holds the two equal).
	fs.IntVar(&c.IngestBatchSize, "ingest-batch-size", 1024, "blocks committed per database transaction while indexing (a batch also ends at 16,384 txs, logs and internal txs)")
	fs.StringVar(&c.Role, "role", RoleAll, "what this instance does: all (serve, and index while no other instance on the store does), api (serve only) or indexer (index only)")
	// The node's own flag names: copy them from the node's configuration.
	fs.Uint64Var(&c.Rewards.MaxConsumptionRate, "stake-max-consumption-rate", 0, "the node's --stake-max-consumption-rate, if it sets one")
	fs.Uint64Var(&c.Rewards.MinConsumptionRate, "stake-min-consumption-rate", 0, "the node's --stake-min-consumption-rate, if it sets one")
	fs.DurationVar(&c.Rewards.MintingPeriod, "stake-minting-period", 0, "the node's --stake-minting-period, if it sets one")
	fs.Uint64Var(&c.Rewards.SupplyCap, "stake-supply-cap", 0, "the node's --stake-supply-cap, if it sets one")
	fs.Var(&l.evmRPCURLs, "evm-rpc-url", "JSON-RPC URL of an EVM chain to serve beside the C-chain, metadata defaulted (repeatable; the config file's evm-chains sets it all)")
	fs.Var((*stringList)(&c.evmVMIDs), "evm-vm-id", "VM id of the EVM chains found on the P-chain and served when the node serves their RPC (repeatable; default subnet-evm's srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy; none: no discovery)")
	fs.StringVar(&c.TeleporterMessenger, "teleporter-address", DefaultTeleporterMessenger, "address of the TeleporterMessenger whose messages are indexed on every EVM chain")
	fs.Var((*stringList)(&c.ContractMetadataFiles), "contract-metadata-file", "token-list style JSON file of curated contract metadata (repeatable)")
	fs.BoolVar(&c.Access.RequireAPIKey, "require-api-key", false, "refuse Data API calls without an API key (401)")
	fs.Var(&l.weights, "rate-limit-weight", "a route's cost in units, 'PATTERN=WEIGHT' with the route's pattern as /metrics labels it (repeatable)")
	fs.StringVar(&c.Access.RateLimitRedis, "rate-limit-redis", "", "share the rate limits of every instance through this Redis, redis://host:port[/db]")
	fs.StringVar(&c.Access.RateLimitRedisPrefix, "rate-limit-redis-prefix", "avaindex:", "prefix of the rate-limit keys in Redis; instances with the same one share their limits")
	fs.Var((*stringList)(&c.Access.CORSOrigins), "cors-origin", "a web origin whose pages may call the Data and Metrics APIs, e.g. https://app.example.com (repeatable; default any)")
	fs.Var(&l.proxies, "trusted-proxy", "a reverse proxy's network (CIDR) whose X-Forwarded-For names the client (repeatable)")
	fs.StringVar(&c.Prices.APIURL, "price-api-url", "", "base URL of a CoinGecko-compatible price API, e.g. https://api.coingecko.com/api/v3 (default none: no price is served)")
	fs.StringVar(&c.Prices.APIKey, "price-api-key", "", "key of the price API")
	fs.StringVar(&c.Prices.APIKeyHeader, "price-api-key-header", "", "header the price API key is sent in (default x-cg-pro-api-key for a pro-api.* host, else x-cg-demo-api-key)")
	fs.Var(&l.priceCoins, "price-coin", "the price API's coin id of an asset or token, KEY=COIN with KEY avax, an X-chain asset id, CHAINID:native or CHAINID:0xTOKEN (repeatable; AVAX and the native token of each EVM chain whose symbol is AVAX are avalanche-2 by default)")
	fs.Float64Var(&c.Prices.RequestsPerMinute, "price-rate-limit", 30, "requests per minute made to the price API at most")
	fs.DurationVar(&c.Prices.CacheTTL, "price-cache-ttl", time.Minute, "how long a current price is kept (historical prices are kept for good)")
	fs.DurationVar(&c.Prices.HistoricalMinAge, "historical-price-min-age", 24*time.Hour, "how long ago a transaction or reward must be for its historicalPrice (the hosted API's 24h; 0: every one)")
	fs.StringVar(&c.NFTMetadata.IPFSGateway, "ipfs-gateway", "https://ipfs.io", "HTTP gateway that serves ipfs:// NFT token URIs (as GATEWAY/ipfs/CID/path)")
	fs.Var(&l.metaNetworks, "metadata-allow-private-network", "a non-public network (CIDR, e.g. 10.0.0.0/8 or 127.0.0.1/32) NFT token URIs may reach; loopback, private, link-local and cloud-metadata addresses are refused otherwise (repeatable)")
	fs.IntVar(&c.NFTMetadata.Concurrency, "metadata-concurrency", 32, "NFT metadata fetches in flight")
	fs.IntVar(&c.NFTMetadata.PerHost, "metadata-per-host", 8, "NFT metadata fetches in flight to one host")
	fs.Int64Var(&c.NFTMetadata.MaxBytes, "metadata-max-bytes", 1<<20, "largest NFT metadata document fetched, in bytes")
	fs.DurationVar(&c.NFTMetadata.Timeout, "metadata-timeout", 10*time.Second, "time allowed to fetch one NFT metadata document, redirects included")
	fs.Var(&l.webhookNetworks, "webhook-allow-private-network", "a non-public network (CIDR, e.g. 10.0.0.0/8 or 127.0.0.1/32) webhook URLs may reach; loopback, private, link-local and cloud-metadata addresses are refused otherwise (repeatable)")
	fs.DurationVar(&c.Webhooks.Timeout, "webhook-timeout", 10*time.Second, "time allowed for one webhook delivery request, connection included")
	fs.IntVar(&c.Webhooks.MaxAttempts, "webhook-max-attempts", 12, "failed deliveries in a row after which a webhook turns inactive (the waits double from 1s, jittered)")
	fs.DurationVar(&c.Webhooks.MaxBackoff, "webhook-max-backoff", 10*time.Minute, "longest wait between two delivery attempts of a webhook")
	fs.IntVar(&c.Webhooks.Concurrency, "webhook-concurrency", 8, "webhooks an instance delivers to at once")
	fs.DurationVar(&c.Webhooks.Retention, "webhook-retention", 24*time.Hour, "how long delivered webhook events stay for the event stream (GET /v1/webhooks/{id}/events) to resume from")
	fs.Var(&l.webhookLimits, "webhook-limit", "the webhooks a key of a tier may have and the addresses each may watch, TIER:WEBHOOKS:ADDRESSES, e.g. standard:10:10000 (repeatable; default 10 webhooks of 10000 addresses for every tier)")
	fs.Var(&l.spamAllow, "spam-token-allow", "an ERC-20 token never filtered as spam by filterSpamTokens, CHAINID:0xADDRESS or 0xADDRESS for every chain (repeatable)")
	fs.Var(&l.spamDeny, "spam-token-deny", "an ERC-20 token always filtered as spam by filterSpamTokens, CHAINID:0xADDRESS or 0xADDRESS for every chain (repeatable)")
	fs.Var(&l.btcbBridges, "btcb-bridge", "the BTC.b contract the Avalanche Bridge mints and burns on an EVM chain, CHAINID:0xADDRESS, e.g. 43114:0x152b9d0FdC40C096757F570A51E494bd4b943E50 on mainnet (repeatable; default none: getAddressesByBtcbBridged answers 404)")
	fs.DurationVar(&c.UsageRetention, "usage-retention", 30*24*time.Hour, "how long the recorded API requests (apiUsageMetrics, apiLogs) are kept; 0 keeps them forever")
	fs.DurationVar(&c.Exports.LinkTTL, "export-link-ttl", time.Hour, "how long a transaction export's download link (getOperationResult's downloadUrl) is valid")
	fs.Int64Var(&c.Exports.MaxRows, "export-max-rows", 1_000_000, "most rows of one transaction export; a longer one completes with WarnTruncatedExport and the nextDate to continue from")
	fs.DurationVar(&c.Exports.Retention, "export-retention", 7*24*time.Hour, "how long a finished transaction export and its file are kept; 0 keeps them forever")
}

// Load parses serve's args (without the program and command names).
// usage, when non-nil, receives the flag help on -h.
func Load(name string, args []string, getenv func(string) string, usage io.Writer) (*Config, error) {
	c, positional, err := LoadCommand(Command{Name: name, Flags: AllFlags}, args, getenv, usage)
	if err == nil && len(positional) > 0 {
		return nil, fmt.Errorf("unexpected argument %q", positional[0])
	}
	return c, err
}

// LoadCommand parses the args of cmd, which reads the flags of
// cmd.Flags and its own (cmd.Extra): the arguments that are not flags are
// returned, wherever they were among the flags. A config file may hold
// keys of flags this command does not read (one file serves every
// command); they are ignored here.
func LoadCommand(cmd Command, args []string, getenv func(string) string, usage io.Writer) (*Config, []string, error) {
	if usage == nil {
		usage = io.Discard
	}
	l := new(loader)
	c := &l.c
	fs := l.flagSet(cmd, usage)
	// The command's own flags are those no command shares.
	shared := Command{Flags: AllFlags}.FlagSet()
	commandOnly := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { commandOnly[f.Name] = shared.Lookup(f.Name) == nil })
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}

	onCommandLine := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { onCommandLine[f.Name] = true })

	path := l.configFile
	if path == "" && cmd.Flags&StoreFlags != 0 {
		path = getenv(EnvPrefix + "CONFIG")
	}
	fileValues := map[string]any{}
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("reading config file: %w", err)
		}
		if err := yaml.Unmarshal(b, &fileValues); err != nil {
			return nil, nil, fmt.Errorf("parsing config file %s: %w", path, err)
		}
		// The structured keys (the EVM chains) are no flags.
		if cmd.Flags&ServeFlags != 0 {
			if err := c.loadEVMChains(b); err != nil {
				return nil, nil, fmt.Errorf("config file %s: %w", path, err)
			}
		}
		for k := range fileValues {
			if structuredKeys[k] {
				continue
			}
			if k == "config" || commandOnly[k] || shared.Lookup(k) == nil {
				return nil, nil, fmt.Errorf("config file %s: unknown key %q", path, k)
			}
		}
	}

	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "config" || onCommandLine[f.Name] || commandOnly[f.Name] {
			return
		}
		env := EnvPrefix + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := getenv(env); v != "" {
			for _, part := range splitList(f, v) {
				if err := f.Value.Set(part); err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", env, err))
				}
			}
			return
		}
		if v, ok := fileValues[f.Name]; ok {
			for _, part := range fileList(v) {
				if err := f.Value.Set(part); err != nil {
					errs = append(errs, fmt.Errorf("config file key %q: %w", f.Name, err))
				}
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	for _, u := range l.evmRPCURLs {
		c.EVMChains = append(c.EVMChains, EVMChain{RPCURL: u})
	}
	if err := c.Access.parse(l.tiers, l.weights, l.proxies); err != nil {
		return nil, nil, err
	}
	if err := c.Prices.parse(append(c.Prices.fileCoins, l.priceCoins...)); err != nil {
		return nil, nil, err
	}
	c.Webhooks.DefaultLimit = WebhookLimit{Webhooks: 10, Addresses: 10_000}
	for _, v := range l.webhookNetworks {
		p, err := parsePrefix(v)
		if err != nil {
			return nil, nil, fmt.Errorf("--webhook-allow-private-network: %w", err)
		}
		c.Webhooks.AllowPrivateNetworks = append(c.Webhooks.AllowPrivateNetworks, p)
	}
	for _, v := range l.webhookLimits {
		tier, lim, err := parseWebhookLimit(v)
		if err != nil {
			return nil, nil, fmt.Errorf("--webhook-limit: %w", err)
		}
		if c.Webhooks.Limits == nil {
			c.Webhooks.Limits = map[string]WebhookLimit{}
		}
		c.Webhooks.Limits[tier] = lim
	}
	var err error
	if c.SpamTokens.Allow, err = parseTokenRefs("spam-token-allow", l.spamAllow); err != nil {
		return nil, nil, err
	}
	if c.SpamTokens.Deny, err = parseTokenRefs("spam-token-deny", l.spamDeny); err != nil {
		return nil, nil, err
	}
	if c.BTCbBridges, err = parseTokenRefs("btcb-bridge", l.btcbBridges); err != nil {
		return nil, nil, err
	}
	for _, r := range c.BTCbBridges {
		if r.ChainID == 0 {
			return nil, nil, fmt.Errorf("--btcb-bridge: %s: want CHAINID:0xADDRESS", r.Address.Hex())
		}
	}
	for _, v := range l.metaNetworks {
		p, err := parsePrefix(v)
		if err != nil {
			return nil, nil, fmt.Errorf("--metadata-allow-private-network: %w", err)
		}
		c.NFTMetadata.AllowPrivateNetworks = append(c.NFTMetadata.AllowPrivateNetworks, p)
	}
	return c, positional, c.validate()
}

// parse fills the tiers, weights and proxies from their flags' values,
// over the defaults.
func (a *Access) parse(tiers, weights, proxies []string) error {
	a.Tiers = ratelimit.DefaultTiers()
	for _, v := range tiers {
		t, err := ratelimit.ParseTier(v)
		if err != nil {
			return fmt.Errorf("--rate-limit-tier: %w", err)
		}
		a.Tiers[t.Name] = t
	}
	a.Weights = ratelimit.DefaultWeights()
	for _, v := range weights {
		pattern, w, err := ratelimit.ParseWeight(v)
		if err != nil {
			return fmt.Errorf("--rate-limit-weight: %w", err)
		}
		a.Weights[pattern] = w
	}
	for _, v := range proxies {
		p, err := parsePrefix(v)
		if err != nil {
			return fmt.Errorf("--trusted-proxy: %w", err)
		}
		a.TrustedProxies = append(a.TrustedProxies, p)
	}
	if len(a.CORSOrigins) == 0 {
		a.CORSOrigins = []string{"*"}
	}
	return nil
}

// parsePrefix parses a CIDR network, or an address (its /32 or /128).
func parsePrefix(v string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(v)
	if err != nil {
		a, aerr := netip.ParseAddr(v)
		if aerr != nil {
			return netip.Prefix{}, fmt.Errorf("%q is not an address or a CIDR network", v)
		}
		p = netip.PrefixFrom(a, a.BitLen())
	}
	return p.Masked(), nil
}

func (c *Config) validate() error {
	u, err := url.Parse(c.NodeURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--node-url must be an http(s) URL, got %q", c.NodeURL)
	}
	if c.DB == "" {
		c.DB = "sqlite:" + filepath.Join(c.DataDir, "avaindex.db")
	}
	if !strings.HasPrefix(c.DB, "sqlite:") && !strings.HasPrefix(c.DB, "postgres://") && !strings.HasPrefix(c.DB, "postgresql://") {
		return fmt.Errorf("--db must be sqlite:PATH or postgres://..., got %q", c.DB)
	}
	if c.PollInterval < 10*time.Millisecond {
		return fmt.Errorf("--poll-interval must be at least 10ms, got %s", c.PollInterval)
	}
	if c.IngestBatchSize < 1 || c.IngestBatchSize > 10000 {
		return fmt.Errorf("--ingest-batch-size must be between 1 and 10000, got %d", c.IngestBatchSize)
	}
	switch c.Role {
	case RoleAll, RoleAPI, RoleIndexer:
	default:
		return fmt.Errorf("--role must be all, api or indexer, got %q", c.Role)
	}
	if c.InstanceName == "" {
		host, _ := os.Hostname()
		c.InstanceName = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("--log-level must be debug, info, warn or error, got %q", c.LogLevel)
	}
	if c.Rewards.MaxConsumptionRate > reward.PercentDenominator || c.Rewards.MinConsumptionRate > reward.PercentDenominator {
		return fmt.Errorf("--stake-max-consumption-rate and --stake-min-consumption-rate must be at most %d", reward.PercentDenominator)
	}
	if c.Rewards.MintingPeriod < 0 {
		return fmt.Errorf("--stake-minting-period must not be negative, got %s", c.Rewards.MintingPeriod)
	}
	for _, a := range c.NetworkAliases {
		if a == "" || strings.ContainsAny(a, "/ ") {
			return fmt.Errorf("--network-alias %q is not a valid path segment", a)
		}
	}
	if err := c.validateEVM(); err != nil {
		return err
	}
	if err := c.Prices.validate(); err != nil {
		return err
	}
	if u, err := url.Parse(c.NFTMetadata.IPFSGateway); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--ipfs-gateway must be an http(s) URL, got %q", c.NFTMetadata.IPFSGateway)
	}
	if c.NFTMetadata.Concurrency < 1 || c.NFTMetadata.Concurrency > 4096 {
		return fmt.Errorf("--metadata-concurrency must be between 1 and 4096, got %d", c.NFTMetadata.Concurrency)
	}
	if c.NFTMetadata.PerHost < 1 {
		return fmt.Errorf("--metadata-per-host must be at least 1, got %d", c.NFTMetadata.PerHost)
	}
	if c.NFTMetadata.MaxBytes < 1024 {
		return fmt.Errorf("--metadata-max-bytes must be at least 1024, got %d", c.NFTMetadata.MaxBytes)
	}
	if c.Exports.LinkTTL <= 0 {
		return fmt.Errorf("--export-link-ttl must be positive, got %s", c.Exports.LinkTTL)
	}
	if c.Exports.MaxRows <= 0 {
		return fmt.Errorf("--export-max-rows must be positive, got %d", c.Exports.MaxRows)
	}
	if c.Exports.Retention < 0 {
		return fmt.Errorf("--export-retention must not be negative, got %s", c.Exports.Retention)
	}
	if c.UsageRetention < 0 {
		return fmt.Errorf("--usage-retention must not be negative, got %s", c.UsageRetention)
	}
	if c.NFTMetadata.Timeout < 100*time.Millisecond {
		return fmt.Errorf("--metadata-timeout must be at least 100ms, got %s", c.NFTMetadata.Timeout)
	}
	return c.Access.validate()
}

func (a *Access) validate() error {
	if a.RateLimitRedis != "" {
		u, err := url.Parse(a.RateLimitRedis)
		if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
			return fmt.Errorf("--rate-limit-redis must be a redis:// or rediss:// URL, got %q", a.RateLimitRedis)
		}
	}
	for _, o := range a.CORSOrigins {
		if o == "*" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil ||
			strings.Contains(strings.TrimPrefix(u.Host, "*."), "*") {
			return fmt.Errorf("--cors-origin must be * or scheme://host[:port] (the host may start with *.), got %q", o)
		}
	}
	return nil
}

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// splitList splits an environment value of a repeatable flag on commas.
func splitList(f *flag.Flag, v string) []string {
	if _, ok := f.Value.(*stringList); ok {
		return strings.Split(v, ",")
	}
	return []string{v}
}

// fileList turns a config file value (scalar or list) into flag values.
func fileList(v any) []string {
	if list, ok := v.([]any); ok {
		var out []string
		for _, e := range list {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return []string{fmt.Sprint(v)}
}

// RedactedDB returns DB with any password replaced, for logs.
func (c *Config) RedactedDB() string {
	u, err := url.Parse(c.DB)
	if err != nil || u.User == nil {
		return c.DB
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
