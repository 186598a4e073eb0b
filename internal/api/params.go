package api

import (
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/derrors"
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

// Sort orders.
const (
	Asc  = "asc"
	Desc = "desc"
)

// maxEcho bounds how much of a rejected value an error message repeats.
const maxEcho = 64

// clip shortens s to at most n bytes for use in a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// got formats a rejected value for a message.
func got(v string) string { return strconv.Quote(clip(v, maxEcho)) }

// queryValues parses r's query string strictly: a malformed query string is
// an error rather than silently dropped pairs.
func queryValues(r *http.Request) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, derrors.Invalid("malformed query string")
	}
	return q, nil
}

// QueryValue returns the one value of the query parameter name and whether
// it is present. A parameter given more than once is an error.
func QueryValue(r *http.Request, name string) (string, bool, error) {
	q, err := queryValues(r)
	if err != nil {
		return "", false, err
	}
	vs, ok := q[name]
	switch {
	case !ok:
		return "", false, nil
	case len(vs) > 1:
		return "", false, derrors.Invalid("%s must be given at most once", name)
	}
	return vs[0], true, nil
}

// OnlyParams rejects a request whose query string has a parameter not in
// names.
func OnlyParams(r *http.Request, names ...string) error {
	q, err := queryValues(r)
	if err != nil {
		return err
	}
	for k := range q {
		known := false
		for _, n := range names {
			if k == n {
				known = true
				break
			}
		}
		if !known {
			return derrors.Invalid("unknown query parameter %s; allowed: %s", got(k), strings.Join(names, ", "))
		}
	}
	return nil
}

// parseInt parses a base-10 integer written with ASCII digits and an
// optional leading minus sign only (no "+", spaces, exponents or fractions).
func parseInt(s string) (int64, bool) {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || len(digits) > 19 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// PageSize returns the pageSize query parameter: def when absent, otherwise
// an integer in [1, max].
func PageSize(r *http.Request, def, max int) (int, error) {
	v, ok, err := QueryValue(r, "pageSize")
	if err != nil || !ok {
		return def, err
	}
	n, valid := parseInt(v)
	if !valid || n < 1 || n > int64(max) {
		return 0, derrors.Invalid("pageSize must be an integer between 1 and %d, got %s", max, got(v))
	}
	return int(n), nil
}

// PageToken returns the pageToken query parameter, "" when absent or empty.
// Decode it with Tokens.Decode.
func PageToken(r *http.Request) (string, error) {
	v, _, err := QueryValue(r, "pageToken")
	return v, err
}

// OptionalInt returns the integer query parameter name and whether it is
// present; a present value must lie in [min, max].
func OptionalInt(r *http.Request, name string, min, max int64) (int64, bool, error) {
	v, ok, err := QueryValue(r, name)
	if err != nil || !ok {
		return 0, false, err
	}
	n, valid := parseInt(v)
	if !valid || n < min || n > max {
		return 0, false, derrors.Invalid("%s must be an integer between %d and %d, got %s", name, min, max, got(v))
	}
	return n, true, nil
}

// OptionalUint returns the non-negative integer query parameter name
// (startTimestamp, endTimestamp, startBlock, minUtxoAmount, ...) and whether
// it is present.
func OptionalUint(r *http.Request, name string) (int64, bool, error) {
	v, ok, err := QueryValue(r, name)
	if err != nil || !ok {
		return 0, false, err
	}
	n, valid := parseInt(v)
	if !valid || n < 0 {
		return 0, false, derrors.Invalid("%s must be a non-negative integer, got %s", name, got(v))
	}
	return n, true, nil
}

// Bool returns the boolean query parameter name, def when absent. Only
// "true" and "false" are accepted.
func Bool(r *http.Request, name string, def bool) (bool, error) {
	v, ok, err := QueryValue(r, name)
	if err != nil || !ok {
		return def, err
	}
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, derrors.Invalid("%s must be true or false, got %s", name, got(v))
}

// Enum returns the query parameter name, def when absent; a present value
// must be one of allowed (case-sensitive).
func Enum(r *http.Request, name, def string, allowed ...string) (string, error) {
	v, ok, err := QueryValue(r, name)
	if err != nil || !ok {
		return def, err
	}
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return "", derrors.Invalid("%s must be one of %s, got %s", name, strings.Join(allowed, ", "), got(v))
}

// Currency returns the currency query parameter, "usd" when absent.
func Currency(r *http.Request) (string, error) {
	return Enum(r, "currency", Currencies[0], Currencies...)
}

// SortOrder returns the sortOrder query parameter (Asc or Desc), def when
// absent.
func SortOrder(r *http.Request, def string) (string, error) {
	return Enum(r, "sortOrder", def, Asc, Desc)
}

// List returns the items of the list query parameter name, which may be
// comma-separated, repeated (name=a&name=b, how OpenAPI clients send arrays)
// or both. Items are trimmed of spaces; an empty item is an error and so is
// a list of more than max items. It returns nil when name is absent.
func List(r *http.Request, name string, max int) ([]string, error) {
	q, err := queryValues(r)
	if err != nil {
		return nil, err
	}
	vs, ok := q[name]
	if !ok {
		return nil, nil
	}
	var items []string
	for _, v := range vs {
		part, err := splitList(name, v, max, len(items))
		if err != nil {
			return nil, err
		}
		items = append(items, part...)
	}
	return items, nil
}

// splitList splits a comma-separated value of parameter name into trimmed,
// non-empty items; with the already items seen before, at most max.
func splitList(name, v string, max, already int) ([]string, error) {
	if n := strings.Count(v, ",") + 1; n > max-already {
		return nil, derrors.Invalid("%s must list at most %d items", name, max)
	}
	items := strings.Split(v, ",")
	for i, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			return nil, derrors.Invalid("%s must be a comma-separated list without empty items, got %s", name, got(v))
		}
		items[i] = it
	}
	return items, nil
}

// maxEnumListItems bounds the items of an EnumList parameter, duplicates
// included.
const maxEnumListItems = 100

// EnumList returns the list query parameter name (see List) whose items must
// each be one of allowed; duplicates are dropped. It returns nil when name is
// absent.
func EnumList(r *http.Request, name string, allowed ...string) ([]string, error) {
	items, err := List(r, name, maxEnumListItems)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		ok := false
		for _, a := range allowed {
			if it == a {
				ok = true
				break
			}
		}
		if !ok {
			return nil, derrors.Invalid("%s items must be among %s, got %s", name, strings.Join(allowed, ", "), got(it))
		}
		if !seen[it] {
			seen[it] = true
			out = append(out, it)
		}
	}
	return out, nil
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
	v, ok, err := QueryValue(r, name)
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
	items, err := splitList(name, value, max, 0)
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
	v, ok, err := QueryValue(r, name)
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
	v, ok, err := QueryValue(r, name)
	if err != nil || !ok {
		return nil, err
	}
	items, err := splitList(name, v, max, 0)
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
	v, ok, err := QueryValue(r, name)
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
	v, err := Enum(r, "status", "", "failed", "success")
	if err != nil || v == "" {
		return nil, err
	}
	s := uint8(0)
	if v == "success" {
		s = 1
	}
	return &s, nil
}
