package api

import (
	"context"
	"encoding/json"
	"math/big"
	"slices"
	"strings"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/store"
)

// The primary-network webhooks' requests and metadata:
// primary_network_address_activity (P- and X-chain addresses) and
// validator_activity (one node id or subnet id). Their events are derived
// with the P- and X-chain blocks (derive/webhookevents).

type platformSubEvents struct {
	AddressActivitySubEvents []string `json:"addressActivitySubEvents"`
}

type balanceThresholdFilter struct {
	BalanceType      string `json:"balanceType"`
	BalanceThreshold string `json:"balanceThreshold"`
}

type platformMetadata struct {
	EventSignatures        []string                `json:"eventSignatures,omitempty"`
	KeyType                string                  `json:"keyType"`
	Keys                   []string                `json:"keys"`
	SubEvents              platformSubEvents       `json:"subEvents"`
	BalanceThresholdFilter *balanceThresholdFilter `json:"balanceThresholdFilter,omitempty"`
}

type validatorSubEvents struct {
	ValidatorActivitySubEvents []string `json:"validatorActivitySubEvents"`
}

type validatorMetadata struct {
	EventSignatures                []string           `json:"eventSignatures,omitempty"`
	KeyType                        string             `json:"keyType"`
	Keys                           []string           `json:"keys"`
	SubEvents                      validatorSubEvents `json:"subEvents"`
	NodeIDs                        []string           `json:"nodeIds,omitempty"`
	SubnetIDs                      []string           `json:"subnetIds,omitempty"`
	L1ValidatorFeeBalanceThreshold string             `json:"l1ValidatorFeeBalanceThreshold,omitempty"`
}

// The balance types balance_threshold measures, by chain: the unspent,
// unstaked AVAX (see docs/api/webhooks.md).
var thresholdBalanceTypes = map[string]string{"P": "unlockedUnstaked", "X": "unlocked"}

func (a *API) hrp() string {
	if a.network == nil {
		return ""
	}
	return a.network.HRP
}

// webhookChain reads a primary_network_address_activity chainId: the
// chain's name or id.
func (a *API) webhookChain(s string) (string, error) {
	switch strings.ToLower(s) {
	case "p-chain", "p", "pchain":
		return "P", nil
	case "x-chain", "x", "xchain":
		return "X", nil
	}
	if s == constants.PlatformChainID.String() {
		return "P", nil
	}
	if a.network != nil && s == a.network.XChainID.String() {
		return "X", nil
	}
	return "", derrors.Invalid("chainId: must be p-chain or x-chain (or their blockchain ids); got %s", derrors.Echo(s))
}

func (a *API) checkWebhookNetwork(name string) error {
	if name == "" || a.networks == nil {
		return nil
	}
	if _, err := a.networks.Parse(name); err != nil {
		return derrors.Invalid("network: must be one of %s; got %s", strings.Join(a.networks.Names(), ", "), derrors.Echo(name))
	}
	return nil
}

func subEventList(name string, in []string, allowed ...string) ([]string, error) {
	if len(in) == 0 {
		return nil, derrors.Invalid("%s: at least one of %s", name, strings.Join(allowed, ", "))
	}
	var out []string
	for _, s := range in {
		if !slices.Contains(allowed, s) {
			return nil, derrors.Invalid("%s: must be among %s; got %s", name, strings.Join(allowed, ", "), derrors.Echo(s))
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// platformAddresses reads P- or X-chain addresses (bech32 of the served
// network, with or without a chain prefix), returned in bare bech32,
// sorted, without repeats.
func (a *API) platformAddresses(name string, in []string) ([]string, error) {
	if len(in) > maxAddressesPerCall {
		return nil, derrors.Invalid("%s: %d addresses; one request takes %d at most", name, len(in), maxAddressesPerCall)
	}
	out := make([]string, 0, len(in))
	for _, s := range in {
		ad, err := parseAddress(name, s, a.hrp())
		if err != nil {
			return nil, err
		}
		out = append(out, ad.Bech32)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func (a *API) platformRequest(body *webhookRequest, hook *store.Webhook) ([]string, error) {
	if err := a.checkWebhookNetwork(body.Network); err != nil {
		return nil, err
	}
	chain, err := a.webhookChain(body.ChainID)
	if err != nil {
		return nil, err
	}
	var md platformMetadata
	if err := json.Unmarshal(body.Metadata, &md); err != nil {
		return nil, derrors.Invalid("metadata: must be a PrimaryNetworkAddressActivityMetadata object")
	}
	if md.KeyType != "addresses" {
		return nil, derrors.Invalid("metadata.keyType: must be addresses; got %s", derrors.Echo(md.KeyType))
	}
	keys, err := a.platformAddresses("metadata.keys", md.Keys)
	if err != nil {
		return nil, err
	}
	subs, err := subEventList("metadata.subEvents.addressActivitySubEvents", md.SubEvents.AddressActivitySubEvents,
		internal.SubBalanceChange, internal.SubBalanceThreshold, internal.SubRewardDistribution)
	if err != nil {
		return nil, err
	}
	f := store.WebhookFilter{Chain: chain, ChainName: body.ChainID, Network: body.Network, KeyType: md.KeyType, SubEvents: subs}
	if tf := md.BalanceThresholdFilter; tf != nil {
		if want := thresholdBalanceTypes[chain]; tf.BalanceType != want {
			return nil, derrors.Invalid("metadata.balanceThresholdFilter.balanceType: avaindex measures %s on this chain; got %s",
				want, derrors.Echo(tf.BalanceType))
		}
		v, ok := new(big.Int).SetString(tf.BalanceThreshold, 10)
		if !ok || v.Sign() < 0 || v.BitLen() > 64 {
			return nil, derrors.Invalid("metadata.balanceThresholdFilter.balanceThreshold: must be a decimal amount of nAVAX; got %s",
				derrors.Echo(tf.BalanceThreshold))
		}
		f.BalanceType, f.BalanceThreshold = tf.BalanceType, v.String()
	}
	if slices.Contains(subs, internal.SubBalanceThreshold) && f.BalanceThreshold == "" {
		return nil, derrors.Invalid("metadata.balanceThresholdFilter: required with the balance_threshold sub-event")
	}
	hook.Filter = f
	return keys, nil
}

// validatorKey reads a validator_activity key: a node id or a subnet id.
func validatorKey(name, keyType, s string) (string, error) {
	switch keyType {
	case "nodeId":
		n, err := ids.NodeIDFromString(s)
		if err != nil {
			return "", derrors.Invalid("%s: %s is not a node id (NodeID-...)", name, derrors.Echo(s))
		}
		return n.String(), nil
	default:
		id, err := ids.FromString(s)
		if err != nil {
			return "", derrors.Invalid("%s: %s is not a subnet id (cb58)", name, derrors.Echo(s))
		}
		return id.String(), nil
	}
}

func validatorKeys(name, keyType string, in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for _, s := range in {
		k, err := validatorKey(name, keyType, s)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func (a *API) validatorRequest(body *webhookRequest, hook *store.Webhook) ([]string, error) {
	if err := a.checkWebhookNetwork(body.Network); err != nil {
		return nil, err
	}
	var md validatorMetadata
	if err := json.Unmarshal(body.Metadata, &md); err != nil {
		return nil, derrors.Invalid("metadata: must be a ValidatorActivityMetadata object")
	}
	if md.KeyType != "nodeId" && md.KeyType != "subnetId" {
		return nil, derrors.Invalid("metadata.keyType: must be nodeId or subnetId; got %s", derrors.Echo(md.KeyType))
	}
	keys, err := validatorKeys("metadata.keys", md.KeyType, md.Keys)
	if err != nil {
		return nil, err
	}
	if len(keys) != 1 {
		return nil, derrors.Invalid("metadata.keys: a validator_activity webhook watches one key; %d given", len(keys))
	}
	subs, err := subEventList("metadata.subEvents.validatorActivitySubEvents", md.SubEvents.ValidatorActivitySubEvents,
		internal.SubValidatorStake, internal.SubDelegatorStake, internal.SubRewardDistribution, internal.SubL1BalanceIncreased,
		internal.SubL1Disabled, internal.SubL1Removed, internal.SubL1BalanceThreshold)
	if err != nil {
		return nil, err
	}
	nodes, err := validatorKeys("metadata.nodeIds", "nodeId", md.NodeIDs)
	if err != nil {
		return nil, err
	}
	subnets, err := validatorKeys("metadata.subnetIds", "subnetId", md.SubnetIDs)
	if err != nil {
		return nil, err
	}
	if len(nodes) > maxEventSignatures || len(subnets) > maxEventSignatures {
		return nil, derrors.Invalid("metadata.nodeIds, metadata.subnetIds: %d ids at most each", maxEventSignatures)
	}
	if t := md.L1ValidatorFeeBalanceThreshold; t != "" {
		if v, ok := new(big.Int).SetString(t, 10); !ok || v.Sign() < 0 || v.BitLen() > 64 {
			return nil, derrors.Invalid("metadata.l1ValidatorFeeBalanceThreshold: must be a decimal amount of nAVAX; got %s", derrors.Echo(t))
		}
	}
	if md.L1ValidatorFeeBalanceThreshold == "" && slices.Contains(subs, internal.SubL1BalanceThreshold) {
		return nil, derrors.Invalid("metadata.l1ValidatorFeeBalanceThreshold: required with the %s sub-event", internal.SubL1BalanceThreshold)
	}
	chainName := body.ChainID
	if chainName == "" {
		chainName = constants.PlatformChainID.String()
	}
	hook.Filter = store.WebhookFilter{ChainName: chainName, Network: body.Network, KeyType: md.KeyType, SubEvents: subs,
		NodeIDs: nodes, SubnetIDs: subnets, L1FeeBalanceThreshold: md.L1ValidatorFeeBalanceThreshold}
	return keys, nil
}

func renderPlatformMetadata(w *store.Webhook, keys []string) platformMetadata {
	m := platformMetadata{KeyType: w.Filter.KeyType, Keys: keys,
		SubEvents: platformSubEvents{AddressActivitySubEvents: append([]string{}, w.Filter.SubEvents...)}}
	if w.Filter.BalanceThreshold != "" {
		m.BalanceThresholdFilter = &balanceThresholdFilter{BalanceType: w.Filter.BalanceType, BalanceThreshold: w.Filter.BalanceThreshold}
	}
	return m
}

func renderValidatorMetadata(w *store.Webhook, keys []string) validatorMetadata {
	return validatorMetadata{KeyType: w.Filter.KeyType, Keys: keys,
		SubEvents: validatorSubEvents{ValidatorActivitySubEvents: append([]string{}, w.Filter.SubEvents...)},
		NodeIDs:   w.Filter.NodeIDs, SubnetIDs: w.Filter.SubnetIDs, L1ValidatorFeeBalanceThreshold: w.Filter.L1FeeBalanceThreshold}
}

// webhookKeys reads addAddressesToWebhook's or removeAddressesFromWebhook's
// addresses as hook's keys.
func (a *API) webhookKeys(ctx context.Context, src WebhookSource, hook *store.Webhook, in []string, add bool) ([]string, error) {
	switch hook.EventType {
	case internal.EventPlatformAddressActivity:
		return a.platformAddresses("addresses", in)
	case internal.EventValidatorActivity:
		keys, err := validatorKeys("addresses", hook.Filter.KeyType, in)
		if err != nil || !add {
			return keys, err
		}
		have, _, err := src.WebhookAddresses(ctx, hook.Owner, hook.ID, "", 2)
		if err != nil {
			return nil, err
		}
		all := append(append([]string{}, have...), keys...)
		slices.Sort(all)
		if len(slices.Compact(all)) > 1 {
			return nil, derrors.Invalid("addresses: a validator_activity webhook watches one key; remove its key first")
		}
		return keys, nil
	default:
		return webhookAddresses("addresses", in)
	}
}
