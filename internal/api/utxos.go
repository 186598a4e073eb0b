package api

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strconv"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/xchain"
)

// The "Primary Network UTXOs" operations: getUtxosByAddresses (GET) and
// getUtxosByAddressesV2 (POST, addresses in the body, larger pages).
//
// A chain's list holds the UTXOs created on it and the atomic UTXOs
// exported to it (so an export is on both chains' lists: createdOnChainId
// and consumedOnChainId tell which is which); the C-chain's are the atomic
// UTXOs it exported and those exported to it. Staked P-chain outputs are
// listed while staked. assetId filters on every chain (the P-chain holds
// AVAX and the staking assets of elastic subnets).

// Address limits of the UTXO lists.
const (
	MaxUTXOAddresses     = 64   // GET: the addresses query parameter
	MaxUTXOAddressesPost = 1024 // POST: the addresses body field
)

// utxoCursor is the keyset of the UTXO lists' page tokens: the sort key
// (creation time or amount) and id of the last UTXO of the page.
type utxoCursor struct {
	K uint64 `json:"k"`
	U ids.ID `json:"u"`
}

// listUTXOs serves getUtxosByAddresses.
func (a *API) listUTXOs(w http.ResponseWriter, r *http.Request) error {
	network, chain, err := a.utxoChain(r)
	if err != nil {
		return err
	}
	addrs, err := a.queryAddresses(r)
	if err != nil {
		return err
	}
	return a.serveUTXOs(w, r, "getUtxosByAddresses", network, chain, addrs, MaxPageSize)
}

// listUTXOsV2 serves getUtxosByAddressesV2: the addresses come in the JSON
// body {"addresses": "a,b,..."}.
func (a *API) listUTXOsV2(w http.ResponseWriter, r *http.Request) error {
	network, chain, err := a.utxoChain(r)
	if err != nil {
		return err
	}
	addrs, err := a.bodyAddresses(r)
	if err != nil {
		return err
	}
	return a.serveUTXOs(w, r, "getUtxosByAddressesV2", network, chain, addrs, MaxPageSizeLarge)
}

// queryAddresses parses the required addresses query parameter of a GET.
func (a *API) queryAddresses(r *http.Request) ([]Address, error) {
	addrs, err := Addresses(r, "addresses", MaxUTXOAddresses, a.network.HRP)
	if err == nil && addrs == nil {
		err = derrors.Invalid("addresses is required: a comma-separated list of at most %d addresses", MaxUTXOAddresses)
	}
	return addrs, err
}

// bodyAddresses parses the addresses of a POST in its JSON body
// {"addresses": "a,b,..."}; the query string must not have them.
func (a *API) bodyAddresses(r *http.Request) ([]Address, error) {
	if _, ok, err := param.QueryValue(r, "addresses"); err != nil || ok {
		if err == nil {
			err = derrors.Invalid("addresses goes in the request body, not the query string")
		}
		return nil, err
	}
	var body struct {
		Addresses *string `json:"addresses"`
	}
	if err := DecodeJSONBody(r, &body); err != nil {
		return nil, err
	}
	if body.Addresses == nil {
		return nil, derrors.Invalid("request body field addresses is required: a comma-separated list of at most %d addresses", MaxUTXOAddressesPost)
	}
	return ParseAddresses("addresses", *body.Addresses, MaxUTXOAddressesPost, a.network.HRP)
}

// utxoChain parses the {network} and {blockchainId} of a UTXO list.
func (a *API) utxoChain(r *http.Request) (string, internal.Chain, error) {
	network, err := a.networks.Network(r)
	if err != nil {
		return "", "", err
	}
	chain, err := a.blockchain(r, internal.PChain, internal.XChain, internal.CChain)
	return network, chain, err
}

// serveUTXOs answers a page of chain's list for addrs: op names the
// operation, for its page tokens, maxPage its page size limit.
func (a *API) serveUTXOs(w http.ResponseWriter, r *http.Request, op, network string, chain internal.Chain, addrs []Address, maxPage int) error {
	q := store.UTXOQuery{Chain: chain}
	for _, ad := range addrs {
		q.Addresses = append(q.Addresses, ad.ID)
	}
	assetParam, _, err := param.QueryValue(r, "assetId")
	if err != nil {
		return err
	}
	if assetParam != "" {
		id, err := ids.FromString(assetParam)
		if err != nil {
			return derrors.Invalid("assetId must be a cb58 asset id, got %s", got(assetParam))
		}
		q.AssetID = &id
	}
	if q.MinAmount, _, err = Amount(r, "minUtxoAmount"); err != nil {
		return err
	}
	if q.IncludeSpent, err = param.Bool(r, "includeSpent", false); err != nil {
		return err
	}
	sortBy, err := param.Enum(r, "sortBy", "timestamp", "timestamp", "amount")
	if err != nil {
		return err
	}
	order, err := SortOrder(r, Desc)
	if err != nil {
		return err
	}
	q.ByAmount, q.Desc = sortBy == "amount", order == Desc

	asset := ""
	if q.AssetID != nil {
		asset = q.AssetID.String()
	}
	spec := listSpec{Op: op, MaxPageSize: maxPage, Filters: []string{string(chain), addressesKey(q.Addresses), asset,
		strconv.FormatUint(q.MinAmount, 10), strconv.FormatBool(q.IncludeSpent), sortBy, order}}
	utxos, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *utxoCursor, limit int) ([]*store.ListedUTXO, error) {
			var k *store.UTXOKey
			if after != nil {
				k = &store.UTXOKey{Key: after.K, ID: after.U}
			}
			return a.store.ListUTXOs(ctx, q, k, limit)
		},
		func(u *store.ListedUTXO) utxoCursor {
			k := u.Key(q.ByAmount)
			return utxoCursor{K: k.Key, U: k.ID}
		})
	if err != nil {
		return err
	}
	info := ChainInfo{ChainName: chainNames[chain], Network: network}
	if chain == internal.PChain {
		resp := ListPChainUtxosResponse{NextPageToken: next, ChainInfo: info, Utxos: make([]PChainUtxo, 0, len(utxos))}
		for _, u := range utxos {
			item, err := a.listedPUTXO(r.Context(), u)
			if err != nil {
				return err
			}
			resp.Utxos = append(resp.Utxos, item)
		}
		WriteJSON(w, http.StatusOK, resp)
		return nil
	}
	resp := ListUtxosResponse{NextPageToken: next, ChainInfo: info, Utxos: make([]Utxo, 0, len(utxos))}
	for _, u := range utxos {
		item, err := a.listedXCUTXO(r.Context(), u)
		if err != nil {
			return err
		}
		resp.Utxos = append(resp.Utxos, item)
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// addressesKey is the normalized address list of a page token's scope:
// the addresses' bytes in byte order, each once.
func addressesKey(addrs []ids.ShortID) string {
	s := slices.Clone(addrs)
	slices.SortFunc(s, func(a, b ids.ShortID) int { return bytes.Compare(a[:], b[:]) })
	s = slices.Compact(s)
	b := make([]byte, 0, len(s)*ids.ShortIDLen)
	for _, a := range s {
		b = append(b, a[:]...)
	}
	return string(b)
}

// listedChainID returns the id (cb58) of the primary-network chain c.
func (a *API) listedChainID(c internal.Chain) string {
	switch c {
	case internal.XChain:
		return a.chainIDs[1]
	case internal.CChain:
		return a.chainIDs[2]
	}
	return a.chainIDs[0]
}

// listedConsumedOn is the chain a UTXO is (or was) consumed on: the destination
// of an export, else the chain that created it.
func (a *API) listedConsumedOn(u *store.ListedUTXO) string {
	if u.Exported() {
		for i, id := range []ids.ID{a.network.PChainID, a.network.XChainID, a.network.CChainID} {
			if u.PeerChain == id {
				return a.chainIDs[i]
			}
		}
		return cb58ID(u.PeerChain)
	}
	return a.listedChainID(u.Origin)
}

// bech32s returns addrs in the network's bare bech32 form.
func (a *API) bech32s(addrs []ids.ShortID) ([]string, error) {
	out := make([]string, len(addrs))
	for i, ad := range addrs {
		s, err := address.FormatBech32(a.network.HRP, ad[:])
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// listedPUTXO is u as a P-chain list item.
func (a *API) listedPUTXO(ctx context.Context, u *store.ListedUTXO) (PChainUtxo, error) {
	asset, err := a.assetAmount(ctx, u.AssetID, u.Amount)
	if err != nil {
		return PChainUtxo{}, err
	}
	owners, err := a.bech32s(u.Owners)
	if err != nil {
		return PChainUtxo{}, err
	}
	locktime, threshold, staked := u.Locktime, u.Threshold, u.Staked
	item := PChainUtxo{
		Addresses:         owners,
		Asset:             asset,
		ConsumedOnChainID: a.listedConsumedOn(u),
		CreatedOnChainID:  a.listedChainID(u.Origin),
		UtxoID:            cb58ID(u.ID),
		UtxoBytes:         hex0x(u.Bytes),
		Amount:            asset.Amount,
		AssetID:           asset.AssetID,
		BlockNumber:       strconv.FormatUint(u.CreatedHeight, 10),
		BlockTimestamp:    u.CreatedTime,
		PlatformLocktime:  &locktime,
		OutputIndex:       u.OutputIndex,
		Staked:            &staked,
		Threshold:         &threshold,
		TxHash:            cb58ID(u.TxID),
		UtxoType:          "TRANSFER",
	}
	stake := u.Origin == internal.PChain && u.Kind == pchain.KindStake
	if stake || u.StakeableLocktime != 0 {
		item.UtxoType = "STAKE"
	}
	if u.StakeableLocktime != 0 {
		sl := u.StakeableLocktime
		item.StakeableLocktime = &sl
	}
	if stake {
		start, end := u.StakeStart, u.StakeEnd
		item.UtxoStartTimestamp, item.UtxoEndTimestamp = &start, &end
	}
	if u.Spent() {
		t := u.ConsumedTime
		item.ConsumingTxHash = cb58ID(u.ConsumedTxID)
		item.ConsumingBlockNumber = strconv.FormatUint(u.ConsumedHeight, 10)
		item.ConsumingBlockTimestamp = &t
	}
	return item, nil
}

// listedXCUTXO is u as an X- or C-chain list item.
func (a *API) listedXCUTXO(ctx context.Context, u *store.ListedUTXO) (Utxo, error) {
	asset, err := a.assetAmount(ctx, u.AssetID, u.Amount)
	if err != nil {
		return Utxo{}, err
	}
	owners, err := a.bech32s(u.Owners)
	if err != nil {
		return Utxo{}, err
	}
	item := Utxo{
		Addresses:         owners,
		Asset:             asset,
		ConsumedOnChainID: a.listedConsumedOn(u),
		CreatedOnChainID:  a.listedChainID(u.Origin),
		UtxoID:            cb58ID(u.ID),
		UtxoBytes:         hex0x(u.Bytes),
		CreationTxHash:    cb58ID(u.CreatedTxID),
		Locktime:          u.Locktime,
		OutputIndex:       strconv.FormatUint(uint64(u.OutputIndex), 10),
		Threshold:         u.Threshold,
		Timestamp:         u.CreatedTime,
		UtxoType:          "transfer",
	}
	// Only the X-chain's own outputs are other than transfers: exports
	// are transfer outputs.
	if u.Origin == internal.XChain && u.Kind == xchain.KindOther {
		o, err := xchain.ParseUTXO(u.Bytes)
		if err != nil {
			return Utxo{}, err
		}
		f := xchain.FormOf(o)
		item.UtxoType, item.GroupID = f.Type, f.GroupID
		if f.Payload != nil {
			item.Payload = hex0x(f.Payload)
		}
	}
	if u.Spent() {
		t := u.ConsumedTime
		item.ConsumingTxHash = cb58ID(u.ConsumedTxID)
		item.ConsumingTxTimestamp = &t
	}
	return item, nil
}

// lastActivity serves getLastActivityTimestampByAddresses.
func (a *API) lastActivity(w http.ResponseWriter, r *http.Request) error {
	_, chain, err := a.utxoChain(r)
	if err != nil {
		return err
	}
	addrs, err := a.queryAddresses(r)
	if err != nil {
		return err
	}
	return a.serveLastActivity(w, r, chain, addrs)
}

// lastActivityV2 serves getLastActivityTimestampByAddressesV2: the
// addresses come in the JSON body {"addresses": "a,b,..."}.
func (a *API) lastActivityV2(w http.ResponseWriter, r *http.Request) error {
	_, chain, err := a.utxoChain(r)
	if err != nil {
		return err
	}
	addrs, err := a.bodyAddresses(r)
	if err != nil {
		return err
	}
	return a.serveLastActivity(w, r, chain, addrs)
}

// serveLastActivity answers the latest event on chain of the UTXOs of
// addrs' list (spent included, at least minUtxoAmount): a UTXO created on
// the chain, or one consumed there (an import consumes another chain's
// export). A later block wins, and in one block a consumption. An address
// set without any is a 404.
func (a *API) serveLastActivity(w http.ResponseWriter, r *http.Request, chain internal.Chain, addrs []Address) error {
	if err := param.OnlyParams(r, "addresses", "minUtxoAmount"); err != nil {
		return err
	}
	q := store.UTXOQuery{Chain: chain, IncludeSpent: true}
	for _, ad := range addrs {
		q.Addresses = append(q.Addresses, ad.ID)
	}
	var err error
	if q.MinAmount, _, err = Amount(r, "minUtxoAmount"); err != nil {
		return err
	}
	type event struct {
		time, height int64
		tx, utxo     ids.ID
		consumed     bool
	}
	var last *event
	consider := func(e event) {
		if last == nil || e.time > last.time || (e.time == last.time && (e.height > last.height ||
			(e.height == last.height && e.consumed && !last.consumed))) {
			last = &e
		}
	}
	err = a.eachListedUTXO(r.Context(), q, func(u *store.ListedUTXO) error {
		if u.Origin == chain {
			consider(event{time: u.CreatedTime, height: int64(u.CreatedHeight), tx: u.CreatedTxID, utxo: u.ID})
		}
		if u.Spent() && (u.Origin != chain || !u.Exported()) {
			consider(event{time: u.ConsumedTime, height: int64(u.ConsumedHeight), tx: u.ConsumedTxID, utxo: u.ID, consumed: true})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if last == nil {
		return derrors.Missing("no activity of the addresses on the %s", chainNames[chain])
	}
	network := "fuji"
	if a.network.Name == "mainnet" {
		network = "mainnet"
	}
	WriteJSON(w, http.StatusOK, LastActivityTimestamp{Timestamp: last.time, BlockNumber: strconv.FormatInt(last.height, 10),
		TxHash: cb58ID(last.tx), UtxoID: cb58ID(last.utxo), IsConsumed: last.consumed, ChainName: chainNames[chain], Network: network})
	return nil
}
