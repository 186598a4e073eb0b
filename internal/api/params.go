package api

import (
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
)

// Every function here answers a parameter that is malformed, out of range,
// outside its allowed values or repeated with a derrors.InvalidArgument
// error whose message names the parameter and what it allows.

// Page sizes of the Data API.
const (
	DefaultPageSize = 10
	MaxPageSize     = 100
	// MaxPageSizeLarge is the limit of the endpoints with large pages
	// (POST .../utxos).
	MaxPageSizeLarge = 1024
)

// Currencies are the values of the currency parameter; the first is the
// default.
var Currencies = []string{
	"usd", "eur", "aud", "cad", "chf", "clp", "cny",
	"czk", "dkk", "gbp", "hkd", "huf", "jpy", "nzd",
}

// got formats a rejected value for a message.
func got(v string) string { return param.Quote(v) }

// Sort orders.
const (
	Asc  = "asc"
	Desc = "desc"
)

// Currency returns the currency query parameter, "usd" when absent.
func Currency(r *http.Request) (string, error) {
	return param.Enum(r, "currency", Currencies[0], Currencies...)
}

// SortOrder returns the sortOrder query parameter (Asc or Desc), def when
// absent.
func SortOrder(r *http.Request, def string) (string, error) {
	return param.Enum(r, "sortOrder", def, Asc, Desc)
}

// Address is a primary-network (P/X) address given in a request.
type Address struct {
	// Bech32 is the bare bech32 form, without a chain prefix: "fuji1...".
	Bech32 string
	ID     ids.ShortID
}

// Addresses parses the comma-separated address list in the query parameter
// name (see ParseAddresses). It returns nil when name is absent.
func Addresses(r *http.Request, name string, max int, hrp string) ([]Address, error) {
	v, ok, err := param.QueryValue(r, name)
	if err != nil || !ok {
		return nil, err
	}
	return ParseAddresses(name, v, max, hrp)
}

// ParseAddresses parses value, a comma-separated list of at most max
// primary-network addresses given as parameter (or body field) name. Each
// address is bech32, optionally prefixed by "P-", "X-" or "C-"; when hrp is
// not empty, the address's human-readable part must be hrp (the served
// network's). Duplicates are dropped; order is kept.
func ParseAddresses(name, value string, max int, hrp string) ([]Address, error) {
	items, err := param.SplitList(name, value, max, 0)
	if err != nil {
		return nil, err
	}
	out := make([]Address, 0, len(items))
	seen := make(map[ids.ShortID]bool, len(items))
	for _, it := range items {
		a, err := parseAddress(name, it, hrp)
		if err != nil {
			return nil, err
		}
		if !seen[a.ID] {
			seen[a.ID] = true
			out = append(out, a)
		}
	}
	return out, nil
}

func parseAddress(name, s, hrp string) (Address, error) {
	bare := s
	if len(bare) > 2 && bare[1] == '-' {
		switch bare[0] {
		case 'P', 'X', 'C', 'p', 'x', 'c':
			bare = bare[2:]
		}
	}
	gotHRP, b, err := address.ParseBech32(bare)
	if err != nil {
		return Address{}, derrors.Invalid("%s: %s is not a valid bech32 address", name, got(s))
	}
	id, err := ids.ToShortID(b)
	if err != nil {
		return Address{}, derrors.Invalid("%s: %s is not a valid bech32 address", name, got(s))
	}
	if hrp != "" && gotHRP != hrp {
		return Address{}, derrors.Invalid("%s: %s is not an address of this network (want prefix %s)", name, got(s), hrp)
	}
	canonical, err := address.FormatBech32(gotHRP, id[:])
	if err != nil {
		return Address{}, derrors.Invalid("%s: %s is not a valid bech32 address", name, got(s))
	}
	return Address{Bech32: canonical, ID: id}, nil
}

// The networks of the Data API's {network} path segment.
const (
	Mainnet = "mainnet"
	Fuji    = "fuji"
	Testnet = "testnet"
)

// Networks is the set of names under which the Data API serves the one
// network avaindex indexes, and the chainInfo.network each name reports.
//
// Mainnet is served as "mainnet"; Fuji as "fuji" and "testnet", both
// reporting "fuji". Any other network (local, custom) is served under its
// own name and under each alias, and reports the name it was requested by;
// give it an alias from the schema's enum (e.g. "testnet") so that strict
// clients accept chainInfo.network. Aliases of mainnet and Fuji report the
// canonical name.
type Networks struct {
	names  []string
	report map[string]string
}

// NewNetworks returns the names of the network called name (avalanchego's
// name: "mainnet", "fuji", "local", "network-88888") with extra aliases.
// Empty and duplicate names are ignored.
func NewNetworks(name string, aliases ...string) *Networks {
	n := &Networks{report: map[string]string{}}
	add := func(served, reported string) {
		if served == "" || n.report[served] != "" {
			return
		}
		n.names = append(n.names, served)
		n.report[served] = reported
	}
	switch name {
	case Mainnet:
		add(Mainnet, Mainnet)
	case Fuji, Testnet:
		name = Fuji
		add(Fuji, Fuji)
		add(Testnet, Fuji)
	default:
		add(name, name)
	}
	for _, a := range aliases {
		if name == Mainnet || name == Fuji {
			add(a, name)
		} else {
			add(a, a)
		}
	}
	return n
}

// Names returns the served names, canonical name first.
func (n *Networks) Names() []string {
	return append([]string(nil), n.names...)
}

// Parse returns the chainInfo.network to report for a request naming
// network name; a name not served is an error listing the served names.
func (n *Networks) Parse(name string) (string, error) {
	if rep, ok := n.report[name]; ok {
		return rep, nil
	}
	return "", derrors.Invalid("network must be one of %s, got %s", strings.Join(n.names, ", "), got(name))
}

// Network parses the {network} path segment of r (see Parse).
func (n *Networks) Network(r *http.Request) (string, error) {
	return n.Parse(r.PathValue("network"))
}

// String lists the served names.
func (n *Networks) String() string { return fmt.Sprint(n.names) }

// Amount returns the query parameter name, a non-negative amount in the
// asset's smallest unit (e.g. minUtxoAmount), and whether it is present.
// The schema makes it a number: a fraction is accepted and rounded up,
// since amounts are whole (at least 1.5 is at least 2).
func Amount(r *http.Request, name string) (uint64, bool, error) {
	v, ok, err := param.QueryValue(r, name)
	if err != nil || !ok {
		return 0, false, err
	}
	bad := derrors.Invalid("%s must be a non-negative number of at most %d, got %s", name, uint64(math.MaxUint64), got(v))
	whole, frac, hasFrac := strings.Cut(v, ".")
	if whole == "" || !allDigits(whole) || (hasFrac && (frac == "" || !allDigits(frac))) {
		return 0, false, bad
	}
	n, err := strconv.ParseUint(whole, 10, 64)
	if err != nil {
		return 0, false, bad
	}
	if strings.Trim(frac, "0") != "" {
		if n == math.MaxUint64 {
			return 0, false, bad
		}
		n++
	}
	return n, true, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// NodeIDs parses the comma-separated node ids ("NodeID-...") in the query
// parameter name, at most max of them, duplicates dropped. It returns nil
// when name is absent.
func NodeIDs(r *http.Request, name string, max int) ([]ids.NodeID, error) {
	v, ok, err := param.QueryValue(r, name)
	if err != nil || !ok {
		return nil, err
	}
	items, err := param.SplitList(name, v, max, 0)
	if err != nil {
		return nil, err
	}
	var out []ids.NodeID
	seen := map[ids.NodeID]bool{}
	for _, it := range items {
		id, err := ids.NodeIDFromString(it)
		if err != nil {
			return nil, derrors.Invalid("%s: %s is not a node id (NodeID-...)", name, got(it))
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// EVMAddress parses the path parameter name: a 0x-prefixed 20-byte hex
// address, in any case (the EIP-55 checksum is not enforced, so that
// lowercase addresses work).
func EVMAddress(r *http.Request, name string) (common.Address, error) {
	v := r.PathValue(name)
	if len(v) != 42 || (v[:2] != "0x" && v[:2] != "0X") {
		return common.Address{}, derrors.Invalid("%s must be a 0x-prefixed 20-byte hex address, got %s", name, got(v))
	}
	b, err := hex.DecodeString(v[2:])
	if err != nil {
		return common.Address{}, derrors.Invalid("%s must be a 0x-prefixed 20-byte hex address, got %s", name, got(v))
	}
	return common.BytesToAddress(b), nil
}

// BlockNumber returns the optional query parameter name, a decimal block
// number, or nil when absent.
func BlockNumber(r *http.Request, name string) (*uint64, error) {
	v, ok, err := param.QueryValue(r, name)
	if err != nil || !ok {
		return nil, err
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || !allDigits(v) {
		return nil, derrors.Invalid("%s must be a decimal block number, got %s", name, got(v))
	}
	return &n, nil
}

// BlockRange returns the block range of startBlock (inclusive; absent:
// from the genesis) and endBlock (exclusive; absent: to the latest block).
// An endBlock below startBlock is an error.
func BlockRange(r *http.Request) (start, end *uint64, err error) {
	if start, err = BlockNumber(r, "startBlock"); err != nil {
		return nil, nil, err
	}
	if end, err = BlockNumber(r, "endBlock"); err != nil {
		return nil, nil, err
	}
	if start != nil && end != nil && *end < *start {
		return nil, nil, derrors.Invalid("endBlock (exclusive) must not be below startBlock (inclusive), got startBlock %d and endBlock %d", *start, *end)
	}
	return start, end, nil
}

// ChainID is the {chainId} of the EVM endpoints: an EVM chain id or a
// P-chain blockchain id.
type ChainID struct {
	// IsEVM tells which of EVM and Blockchain is set.
	IsEVM      bool
	EVM        uint64
	Blockchain ids.ID
	// Text is the segment as given.
	Text string
}

// ChainIDParam parses the {chainId} path segment: an EVM chain id
// (decimal) or a blockchain id (cb58).
func ChainIDParam(r *http.Request) (ChainID, error) {
	v := r.PathValue("chainId")
	bad := derrors.Invalid("chainId must be an EVM chain id (decimal) or a blockchain id (cb58), got %s", got(v))
	if v != "" && allDigits(v) {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return ChainID{}, bad
		}
		return ChainID{IsEVM: true, EVM: n, Text: v}, nil
	}
	id, err := ids.FromString(v)
	if err != nil {
		return ChainID{}, bad
	}
	return ChainID{Blockchain: id, Text: v}, nil
}

// EVMBlockID is the {blockId} of the EVM block endpoints: a block number
// or a block hash.
type EVMBlockID struct {
	// IsHash tells which of Number and Hash is set.
	IsHash bool
	Number uint64
	Hash   common.Hash
}

// EVMBlockIDParam parses the path parameter name: a decimal block number
// or a 0x-prefixed 32-byte hex hash.
func EVMBlockIDParam(r *http.Request, name string) (EVMBlockID, error) {
	v := r.PathValue(name)
	if v != "" && allDigits(v) {
		n, err := strconv.ParseUint(v, 10, 64)
		if err == nil {
			return EVMBlockID{Number: n}, nil
		}
	} else if h, err := EVMHash(r, name); err == nil {
		return EVMBlockID{IsHash: true, Hash: h}, nil
	}
	return EVMBlockID{}, derrors.Invalid("%s must be a decimal block number or a 0x-prefixed 32-byte hex block hash, got %s", name, got(v))
}

// EVMHash parses the path parameter name: a 0x-prefixed 32-byte hex hash,
// in any case.
func EVMHash(r *http.Request, name string) (common.Hash, error) {
	v := r.PathValue(name)
	if len(v) != 66 || (v[:2] != "0x" && v[:2] != "0X") {
		return common.Hash{}, derrors.Invalid("%s must be a 0x-prefixed 32-byte hex hash, got %s", name, got(v))
	}
	b, err := hex.DecodeString(v[2:])
	if err != nil {
		return common.Hash{}, derrors.Invalid("%s must be a 0x-prefixed 32-byte hex hash, got %s", name, got(v))
	}
	return common.BytesToHash(b), nil
}

// TxStatus returns the status query parameter (schema TransactionStatus):
// nil when absent, else the receipt status it selects, 0 for "failed"
// and 1 for "success".
func TxStatus(r *http.Request) (*uint8, error) {
	v, err := param.Enum(r, "status", "", "failed", "success")
	if err != nil || v == "" {
		return nil, err
	}
	s := uint8(0)
	if v == "success" {
		s = 1
	}
	return &s, nil
}

// PathID parses the path segment name as a cb58 id ({subnetId},
// {blockchainId}, {assetId}, ...).
func PathID(r *http.Request, name string) (ids.ID, error) {
	v := r.PathValue(name)
	id, err := ids.FromString(v)
	if err != nil {
		return ids.Empty, derrors.Invalid("%s must be a cb58 id, got %s", name, got(v))
	}
	return id, nil
}
