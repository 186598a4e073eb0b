package config

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"slices"

	"github.com/ava-labs/avalanchego/ids"
	"gopkg.in/yaml.v3"

	"github.com/avaindex/avaindex/internal"
)

// DefaultTeleporterMessenger is the address at which the TeleporterMessenger
// is deployed, the same on every chain (a keyless deployment).
const DefaultTeleporterMessenger = "0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf"

// EVMChain is one EVM chain as configured: where its JSON-RPC is, and the
// metadata the chain endpoints serve for it. Every field but RPCURL is
// optional; the registry fills in what the chain and the P-chain tell
// (chain id, blockchain, subnet and VM) and defaults the rest. The keys
// are those of the Data API's Chain record.
type EVMChain struct {
	// RPCURL is the chain's JSON-RPC endpoint, e.g.
	// http://127.0.0.1:9650/ext/bc/<blockchainID>/rpc. Not set for the
	// C-chain, whose RPC is the node's.
	RPCURL string `yaml:"rpcUrl"`
	WSURL  string `yaml:"wsUrl"`
	// BlockchainID is the chain's id on the P-chain (cb58), for an RPC URL
	// that does not name it; empty: learned from the URL or the P-chain.
	BlockchainID string `yaml:"blockchainId"`

	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	LogoURI     string `yaml:"logoUri"`
	ExplorerURL string `yaml:"explorerUrl"`
	// NetworkToken is the chain's native token; nil fields are defaulted.
	NetworkToken NetworkToken `yaml:"networkToken"`
	// Multicall is the address of a Multicall contract on the chain.
	Multicall string `yaml:"multicall"`
	// EnabledFeatures, when set, replaces the default: the features
	// avaindex serves for every chain (see evmchains.DefaultFeatures).
	EnabledFeatures []string `yaml:"enabledFeatures"`
	Private         bool     `yaml:"private"`
	// IsTestnet, when set, overrides the default: false on mainnet only.
	IsTestnet *bool `yaml:"isTestnet"`
}

// NetworkToken is a chain's native token.
type NetworkToken struct {
	Name        string `yaml:"name"`
	Symbol      string `yaml:"symbol"`
	Decimals    *uint8 `yaml:"decimals"`
	LogoURI     string `yaml:"logoUri"`
	Description string `yaml:"description"`
}

// structuredKeys are the config file's keys that are no flags.
var structuredKeys = map[string]bool{"evm-chains": true, "c-chain": true, "price-coins": true}

// loadEVMChains reads the structured keys of the config file b: an unknown
// field of an entry is an error, as an unknown flag is.
func (c *Config) loadEVMChains(b []byte) error {
	var top map[string]yaml.Node
	if err := yaml.Unmarshal(b, &top); err != nil {
		return err
	}
	decode := func(key string, dst any) error {
		n, ok := top[key]
		if !ok {
			return nil
		}
		raw, err := yaml.Marshal(&n)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		dec.KnownFields(true)
		if err := dec.Decode(dst); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return nil
	}
	if err := decode("evm-chains", &c.EVMChains); err != nil {
		return err
	}
	var coins map[string]string
	if err := decode("price-coins", &coins); err != nil {
		return err
	}
	for k, v := range coins {
		c.Prices.fileCoins = append(c.Prices.fileCoins, k+"="+v)
	}
	slices.Sort(c.Prices.fileCoins)
	return decode("c-chain", &c.CChain)
}

var hexAddress = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)

// validateEVM checks the EVM chains' configuration.
func (c *Config) validateEVM() error {
	if !hexAddress.MatchString(c.TeleporterMessenger) {
		return fmt.Errorf("--teleporter-address must be a 0x-prefixed 20-byte hex address, got %q", c.TeleporterMessenger)
	}
	if c.CChain.RPCURL != "" || c.CChain.WSURL != "" || c.CChain.BlockchainID != "" {
		return fmt.Errorf("c-chain: rpcUrl, wsUrl and blockchainId are the node's; set only metadata there")
	}
	if err := c.CChain.validate("c-chain"); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, e := range c.EVMChains {
		where := fmt.Sprintf("evm-chains[%d]", i)
		if err := checkURL(e.RPCURL, "http", "https"); err != nil {
			return fmt.Errorf("%s: rpcUrl %w", where, err)
		}
		if seen[e.RPCURL] {
			return fmt.Errorf("%s: rpcUrl %s is configured twice", where, e.RPCURL)
		}
		seen[e.RPCURL] = true
		if e.WSURL != "" {
			if err := checkURL(e.WSURL, "ws", "wss"); err != nil {
				return fmt.Errorf("%s: wsUrl %w", where, err)
			}
		}
		if e.BlockchainID != "" {
			if _, err := ids.FromString(e.BlockchainID); err != nil {
				return fmt.Errorf("%s: blockchainId %q is not a cb58 id", where, e.BlockchainID)
			}
		}
		if err := e.validate(where); err != nil {
			return err
		}
	}
	return nil
}

// validate checks the metadata of an entry.
func (e *EVMChain) validate(where string) error {
	if e.Multicall != "" && !hexAddress.MatchString(e.Multicall) {
		return fmt.Errorf("%s: multicall must be a 0x-prefixed 20-byte hex address, got %q", where, e.Multicall)
	}
	for _, f := range e.EnabledFeatures {
		ok := false
		for _, known := range internal.EVMFeatures {
			ok = ok || f == known
		}
		if !ok {
			return fmt.Errorf("%s: enabledFeatures: %q is not one of %v", where, f, internal.EVMFeatures)
		}
	}
	return nil
}

func checkURL(s string, schemes ...string) error {
	u, err := url.Parse(s)
	if err == nil && u.Host != "" {
		for _, sc := range schemes {
			if u.Scheme == sc {
				return nil
			}
		}
	}
	return fmt.Errorf("must be a %s URL, got %q", schemes, s)
}
