package evmchains

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// ContractInfo is the curated metadata of one contract: what no chain
// tells (logos, descriptions, links), and the name, symbol and decimals a
// token list gives. Empty fields are unknown.
type ContractInfo struct {
	Name     string
	Symbol   string
	Decimals *uint8
	// ERCType is the contract's standard when the list says it.
	ERCType       internal.ERCType
	LogoURI       string
	BannerURI     string
	Description   string
	OfficialSite  string
	Email         string
	Color         string
	ResourceLinks []ResourceLink
	Tags          []string
	// CoingeckoID names the token at CoinGecko (pricingProviders).
	CoingeckoID string
}

// ResourceLink is a link about a contract; Type is one of
// ResourceLinkTypes.
type ResourceLink struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// ResourceLinkTypes are the Data API's resource link types (schema
// ResourceLinkType), a closed set.
var ResourceLinkTypes = []string{
	"Blog", "CoinGecko", "CoinMarketCap", "Discord", "Documentation", "Facebook",
	"Github", "Instagram", "LinkedIn", "Medium", "Reddit", "Support", "Telegram",
	"TikTok", "Twitter", "Website", "Whitepaper", "Youtube",
}

// Catalog is the curated contract metadata, by chain and address. The
// zero Catalog (and a nil one) knows no contract.
type Catalog struct {
	m map[catalogKey]ContractInfo
}

type catalogKey struct {
	chainID uint64
	addr    common.Address
}

// Contract returns the curated metadata of addr on chain chainID.
func (c *Catalog) Contract(chainID uint64, addr common.Address) (ContractInfo, bool) {
	if c == nil {
		return ContractInfo{}, false
	}
	info, ok := c.m[catalogKey{chainID, addr}]
	return info, ok
}

// Len is how many contracts the catalog knows.
func (c *Catalog) Len() int {
	if c == nil {
		return 0
	}
	return len(c.m)
}

// tokenList is a token list (the tokenlists.org format): its tokens with
// chainId, address, name, symbol, decimals, logoURI and tag ids, and what
// the Data API's contract metadata has beyond it under each token's
// extensions.
type tokenList struct {
	Tokens []struct {
		ChainID    uint64   `json:"chainId"`
		Address    string   `json:"address"`
		Name       string   `json:"name"`
		Symbol     string   `json:"symbol"`
		Decimals   *uint8   `json:"decimals"`
		LogoURI    string   `json:"logoURI"`
		Tags       []string `json:"tags"`
		Extensions struct {
			ERCType       string         `json:"ercType"`
			Description   string         `json:"description"`
			OfficialSite  string         `json:"officialSite"`
			Email         string         `json:"email"`
			BannerURI     string         `json:"bannerURI"`
			Color         string         `json:"color"`
			ResourceLinks []ResourceLink `json:"resourceLinks"`
			CoingeckoID   string         `json:"coingeckoId"`
		} `json:"extensions"`
	} `json:"tokens"`
	// Tags maps the tag ids tokens use to their names.
	Tags map[string]struct {
		Name string `json:"name"`
	} `json:"tags"`
}

var addressRE = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)

// LoadCatalog reads token-list files; a contract listed again by a later
// file replaces the earlier entry. A malformed file, or a value the Data
// API's schema would not accept (an unknown ercType or resource link
// type), is an error naming the file and the token.
func LoadCatalog(paths ...string) (*Catalog, error) {
	c := &Catalog{m: map[catalogKey]ContractInfo{}}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("contract metadata: %w", err)
		}
		if err := c.add(b); err != nil {
			return nil, fmt.Errorf("contract metadata file %s: %w", p, err)
		}
	}
	return c, nil
}

func (c *Catalog) add(b []byte) error {
	var l tokenList
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&l); err != nil {
		return err
	}
	for i, t := range l.Tokens {
		where := fmt.Sprintf("tokens[%d]", i)
		if !addressRE.MatchString(t.Address) {
			return fmt.Errorf("%s: address %q is not a 0x-prefixed 20-byte hex address", where, t.Address)
		}
		if t.ChainID == 0 {
			return fmt.Errorf("%s: chainId is missing", where)
		}
		x := t.Extensions
		info := ContractInfo{
			Name: t.Name, Symbol: t.Symbol, Decimals: t.Decimals, LogoURI: t.LogoURI,
			Description: x.Description, OfficialSite: x.OfficialSite, Email: x.Email,
			BannerURI: x.BannerURI, Color: x.Color, CoingeckoID: x.CoingeckoID,
			ResourceLinks: slices.Clone(x.ResourceLinks),
		}
		switch typ := internal.ERCType(x.ERCType); typ {
		case "":
		case internal.ERC20, internal.ERC721, internal.ERC1155, internal.ERCUnknown:
			info.ERCType = typ
		default:
			return fmt.Errorf("%s: extensions.ercType %q is not one of ERC-20, ERC-721, ERC-1155, UNKNOWN", where, x.ERCType)
		}
		for _, rl := range info.ResourceLinks {
			if !slices.Contains(ResourceLinkTypes, rl.Type) {
				return fmt.Errorf("%s: resource link type %q is not one of %v", where, rl.Type, ResourceLinkTypes)
			}
			if rl.URL == "" {
				return fmt.Errorf("%s: resource link %q has no url", where, rl.Type)
			}
		}
		for _, tag := range t.Tags {
			if named, ok := l.Tags[tag]; ok && named.Name != "" {
				tag = named.Name
			}
			info.Tags = append(info.Tags, tag)
		}
		c.m[catalogKey{t.ChainID, common.HexToAddress(t.Address)}] = info
	}
	return nil
}
