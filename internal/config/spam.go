package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ava-labs/libevm/common"
)

// SpamTokens are the lists that settle whether an ERC-20 token is spam
// (listErc20Balances' filterSpamTokens), over the heuristics of
// docs/api/evm.md: an allowed token never is, a denied one always is.
type SpamTokens struct {
	Allow, Deny []TokenRef
}

// TokenRef names a token contract: on one EVM chain, or on every chain
// when ChainID is zero.
type TokenRef struct {
	ChainID uint64
	Address common.Address
}

// ParseTokenRef parses CHAINID:0xADDRESS or 0xADDRESS (every chain).
func ParseTokenRef(v string) (TokenRef, error) {
	var ref TokenRef
	addr := v
	if c, a, ok := strings.Cut(v, ":"); ok {
		id, err := strconv.ParseUint(c, 10, 64)
		if err != nil || id == 0 {
			return ref, fmt.Errorf("%q: the chain id before ':' must be a positive integer", v)
		}
		ref.ChainID, addr = id, a
	}
	if !common.IsHexAddress(addr) || !strings.HasPrefix(addr, "0x") {
		return ref, fmt.Errorf("%q: want CHAINID:0xADDRESS or 0xADDRESS", v)
	}
	ref.Address = common.HexToAddress(addr)
	return ref, nil
}

// has reports whether list names token of chainID.
func (s SpamTokens) has(list []TokenRef, chainID uint64, token common.Address) bool {
	for _, r := range list {
		if r.Address == token && (r.ChainID == 0 || r.ChainID == chainID) {
			return true
		}
	}
	return false
}

// Allowed reports whether the allow list names token of chainID.
func (s SpamTokens) Allowed(chainID uint64, token common.Address) bool {
	return s.has(s.Allow, chainID, token)
}

// Denied reports whether the deny list names token of chainID.
func (s SpamTokens) Denied(chainID uint64, token common.Address) bool {
	return s.has(s.Deny, chainID, token)
}

func parseTokenRefs(flag string, vs []string) ([]TokenRef, error) {
	var out []TokenRef
	for _, v := range vs {
		r, err := ParseTokenRef(v)
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", flag, err)
		}
		out = append(out, r)
	}
	return out, nil
}
