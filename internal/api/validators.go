package api

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm/reward"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
)

// The Primary Network's validators, delegators and L1 validators
// (listValidators, getSingleValidatorDetails, listDelegators,
// listL1Validators). How each value the node does not give is computed is
// in docs/api/data-api.md.

// Bounds of the validator lists' parameters.
const (
	// MaxValidatorNodeIDs bounds listValidators' and listDelegators'
	// nodeIds, and MaxDelegatorAddresses listDelegators' rewardAddresses.
	MaxValidatorNodeIDs   = 64
	MaxDelegatorAddresses = 64
	// maxNodeIDText bounds one nodeIds item of listValidators (a
	// substring of a node id).
	maxNodeIDText = 64
	// maxDelegationCapacityParam is the schema's bound of
	// min/maxDelegationCapacity: 720 million AVAX in nAVAX.
	maxDelegationCapacityParam = 720_000_000_000_000_000
)

// Rewards is a validation's rewards (schema Rewards).
type Rewards struct {
	ValidationRewardAmount string   `json:"validationRewardAmount"`
	DelegationRewardAmount string   `json:"delegationRewardAmount"`
	RewardAddresses        []string `json:"rewardAddresses,omitempty"`
	RewardTxHash           string   `json:"rewardTxHash,omitempty"`
}

// ValidatorHealthDetails is schema ValidatorHealthDetails.
type ValidatorHealthDetails struct {
	ReachabilityPercent          float64 `json:"reachabilityPercent"`
	BenchedPChainRequestsPercent float64 `json:"benchedPChainRequestsPercent"`
	BenchedXChainRequestsPercent float64 `json:"benchedXChainRequestsPercent"`
	BenchedCChainRequestsPercent float64 `json:"benchedCChainRequestsPercent"`
}

// ValidatorDetails is one item of ListValidatorDetailsResponse: the fields
// of the four shapes (Active, Pending, Completed, Removed
// ValidatorDetails), each filled only for its validationStatus.
type ValidatorDetails struct {
	TxHash         string          `json:"txHash"`
	NodeID         string          `json:"nodeId"`
	SubnetID       string          `json:"subnetId"`
	AmountStaked   string          `json:"amountStaked"`
	DelegationFee  string          `json:"delegationFee,omitempty"`
	StartTimestamp uint64          `json:"startTimestamp"`
	EndTimestamp   uint64          `json:"endTimestamp"`
	BlsCredentials *BlsCredentials `json:"blsCredentials,omitempty"`
	// Active and completed.
	DelegatorCount  *int     `json:"delegatorCount,omitempty"`
	AmountDelegated string   `json:"amountDelegated,omitempty"`
	Rewards         *Rewards `json:"rewards,omitempty"`
	// Active.
	StakePercentage    *float64                `json:"stakePercentage,omitempty"`
	UptimePerformance  *float64                `json:"uptimePerformance,omitempty"`
	AvalancheGoVersion string                  `json:"avalancheGoVersion,omitempty"`
	DelegationCapacity string                  `json:"delegationCapacity,omitempty"`
	PotentialRewards   *Rewards                `json:"potentialRewards,omitempty"`
	ValidatorHealth    *ValidatorHealthDetails `json:"validatorHealth,omitempty"`
	// Geolocation is required and nullable for active validators: always
	// null, avaindex does not locate nodes.
	Geolocation *json0 `json:"geolocation,omitempty"`
	// Removed.
	RemoveTxHash    string  `json:"removeTxHash,omitempty"`
	RemoveTimestamp *uint64 `json:"removeTimestamp,omitempty"`

	ValidationStatus string `json:"validationStatus"`
}

// json0 marshals as JSON null.
type json0 struct{}

func (json0) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

// ListValidatorDetailsResponse is schema ListValidatorDetailsResponse.
type ListValidatorDetailsResponse struct {
	NextPageToken string             `json:"nextPageToken,omitempty"`
	Validators    []ValidatorDetails `json:"validators"`
}

// DelegatorDetails is one item of ListDelegatorDetailsResponse (schemas
// Active, Pending and CompletedDelegatorDetails).
type DelegatorDetails struct {
	TxHash               string   `json:"txHash"`
	NodeID               string   `json:"nodeId"`
	RewardAddresses      []string `json:"rewardAddresses"`
	AmountDelegated      string   `json:"amountDelegated"`
	DelegationFee        string   `json:"delegationFee"`
	StartTimestamp       uint64   `json:"startTimestamp"`
	EndTimestamp         uint64   `json:"endTimestamp"`
	EstimatedGrossReward string   `json:"estimatedGrossReward,omitempty"`
	EstimatedNetReward   string   `json:"estimatedNetReward,omitempty"`
	GrossReward          string   `json:"grossReward,omitempty"`
	NetReward            string   `json:"netReward,omitempty"`
	DelegationStatus     string   `json:"delegationStatus"`
}

// ListDelegatorDetailsResponse is schema ListDelegatorDetailsResponse.
type ListDelegatorDetailsResponse struct {
	NextPageToken string             `json:"nextPageToken,omitempty"`
	Delegators    []DelegatorDetails `json:"delegators"`
}

// L1BalanceOwner is schema BalanceOwner.
type L1BalanceOwner struct {
	Addresses []string `json:"addresses"`
	Threshold uint32   `json:"threshold"`
}

// L1BlsCredentials is an L1 validator's blsCredentials: its public key
// (the P-chain keeps no proof of possession for it).
type L1BlsCredentials struct {
	PublicKey string `json:"publicKey"`
}

// L1ValidatorDetailsFull is schema L1ValidatorDetailsFull.
type L1ValidatorDetailsFull struct {
	ValidationID          string           `json:"validationId"`
	ValidationIDHex       string           `json:"validationIdHex"`
	NodeID                string           `json:"nodeId"`
	SubnetID              string           `json:"subnetId"`
	Weight                uint64           `json:"weight"`
	RemainingBalance      uint64           `json:"remainingBalance"`
	CreationTimestamp     uint64           `json:"creationTimestamp"`
	BlsCredentials        L1BlsCredentials `json:"blsCredentials"`
	RemainingBalanceOwner L1BalanceOwner   `json:"remainingBalanceOwner"`
	DeactivationOwner     L1BalanceOwner   `json:"deactivationOwner"`
}

// ListL1ValidatorsResponse is schema ListL1ValidatorsResponse.
type ListL1ValidatorsResponse struct {
	NextPageToken string                   `json:"nextPageToken,omitempty"`
	Validators    []L1ValidatorDetailsFull `json:"validators"`
	BlockHeight   string                   `json:"blockHeight"`
}

// validatorFilter is listValidators' selection.
type validatorFilter struct {
	statuses       []string
	subnet         *ids.ID
	nodeTexts      []string
	minCap, maxCap *uint64
	minTime        *float64
	maxTime        *float64
	minFee, maxFee *float64
	minUp, maxUp   *float64
	now            int64
}

func (f *validatorFilter) match(v *valItem) bool {
	if len(f.statuses) > 0 && !slices.Contains(f.statuses, v.status) {
		return false
	}
	if f.subnet != nil && v.row.SubnetID != *f.subnet {
		return false
	}
	if len(f.nodeTexts) > 0 && !slices.ContainsFunc(f.nodeTexts, func(s string) bool { return strings.Contains(v.nodeID, s) }) {
		return false
	}
	if f.minCap != nil || f.maxCap != nil {
		if !v.hasCapacity || (f.minCap != nil && v.capacity < *f.minCap) || (f.maxCap != nil && v.capacity > *f.maxCap) {
			return false
		}
	}
	if f.minTime != nil || f.maxTime != nil {
		left := max(float64(v.row.EndTime)-float64(f.now), 0)
		if (f.minTime != nil && left < *f.minTime) || (f.maxTime != nil && left > *f.maxTime) {
			return false
		}
	}
	if f.minFee != nil || f.maxFee != nil {
		if v.row.Kind == internal.StakerSubnetValidator {
			return false
		}
		fee := float64(v.row.DelegationShares) / 10_000
		if (f.minFee != nil && fee < *f.minFee) || (f.maxFee != nil && fee > *f.maxFee) {
			return false
		}
	}
	if f.minUp != nil || f.maxUp != nil {
		if !v.hasUptime || (f.minUp != nil && v.uptime.Percent < *f.minUp) || (f.maxUp != nil && v.uptime.Percent > *f.maxUp) {
			return false
		}
	}
	return true
}

// numberParam parses the optional number query parameter name within
// [lo, hi].
func numberParam(r *http.Request, name string, lo, hi float64) (*float64, string, error) {
	v, ok, err := param.QueryValue(r, name)
	if err != nil || !ok {
		return nil, "", err
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || f < lo || f > hi {
		return nil, "", derrors.Invalid("%s must be a number from %g to %g, got %s", name, lo, hi, got(v))
	}
	return &f, strconv.FormatFloat(f, 'g', -1, 64), nil
}

// nAVAXParam parses the optional nAVAX amount query parameter name within
// [0, maxDelegationCapacityParam].
func nAVAXParam(r *http.Request, name string) (*uint64, string, error) {
	v, ok, err := param.QueryValue(r, name)
	if err != nil || !ok {
		return nil, "", err
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n > maxDelegationCapacityParam {
		return nil, "", derrors.Invalid("%s must be an amount of nAVAX from 0 to %d, got %s", name, uint64(maxDelegationCapacityParam), got(v))
	}
	return &n, strconv.FormatUint(n, 10), nil
}

// subnetParam parses the optional subnetId query parameter.
func subnetParam(r *http.Request) (*ids.ID, error) {
	v, ok, err := param.QueryValue(r, "subnetId")
	if err != nil || !ok {
		return nil, err
	}
	id, err := ids.FromString(v)
	if err != nil {
		return nil, derrors.Invalid("subnetId must be a subnet id (cb58), got %s", got(v))
	}
	return &id, nil
}

// listValidators serves listValidators.
func (a *API) listValidators(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	f := validatorFilter{now: time.Now().Unix()}
	var keys []string
	status, err := param.Enum(r, "validationStatus", "", statusCompleted, statusActive, statusPending, statusRemoved)
	if err != nil {
		return err
	}
	if status != "" {
		f.statuses = []string{status}
	}
	if f.subnet, err = subnetParam(r); err != nil {
		return err
	}
	if f.nodeTexts, err = param.List(r, "nodeIds", MaxValidatorNodeIDs); err != nil {
		return err
	}
	for _, s := range f.nodeTexts {
		if len(s) > maxNodeIDText {
			return derrors.Invalid("nodeIds: each item must be at most %d characters, got %s", maxNodeIDText, got(s))
		}
	}
	sortBy, err := param.Enum(r, "sortBy", sortBlockIndex, validatorSorts...)
	if err != nil {
		return err
	}
	order, err := SortOrder(r, Desc)
	if err != nil {
		return err
	}
	var k1, k2, k3, k4, k5, k6, k7, k8 string
	if f.minCap, k1, err = nAVAXParam(r, "minDelegationCapacity"); err != nil {
		return err
	}
	if f.maxCap, k2, err = nAVAXParam(r, "maxDelegationCapacity"); err != nil {
		return err
	}
	if f.minTime, k3, err = numberParam(r, "minTimeRemaining", 0, math.MaxInt32); err != nil {
		return err
	}
	if f.maxTime, k4, err = numberParam(r, "maxTimeRemaining", 0, math.MaxInt32); err != nil {
		return err
	}
	if f.minFee, k5, err = numberParam(r, "minFeePercentage", 2, 100); err != nil {
		return err
	}
	if f.maxFee, k6, err = numberParam(r, "maxFeePercentage", 2, 100); err != nil {
		return err
	}
	if f.minUp, k7, err = numberParam(r, "minUptimePerformance", 0, 100); err != nil {
		return err
	}
	if f.maxUp, k8, err = numberParam(r, "maxUptimePerformance", 0, 100); err != nil {
		return err
	}
	subnet := ""
	if f.subnet != nil {
		subnet = f.subnet.String()
	}
	keys = append(keys, status, subnet, strings.Join(f.nodeTexts, ","), sortBy, order, k1, k2, k3, k4, k5, k6, k7, k8)
	desc := order == Desc
	var view *validatorView
	items, next, err := listPage(a, r, listSpec{Op: "listValidators", Filters: keys},
		func(ctx context.Context, after *vKey, limit int) ([]*valItem, error) {
			v, err := a.validatorView(ctx)
			if err != nil {
				return nil, err
			}
			view = v
			var out []*valItem
			walk(v.orders[sortBy], func(i int32) vKey { return valKey(&v.vals[i], sortBy) }, after, desc, func(i int32) bool {
				if it := &v.vals[i]; f.match(it) {
					out = append(out, it)
				}
				return len(out) < limit
			})
			return out, nil
		},
		func(v *valItem) vKey { return valKey(v, sortBy) })
	if err != nil {
		return err
	}
	out, err := a.renderValidators(r.Context(), view, items)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, ListValidatorDetailsResponse{NextPageToken: next, Validators: out})
	return nil
}

// getSingleValidatorDetails serves getSingleValidatorDetails: the
// validations of one node (on any subnet) by start time.
func (a *API) getSingleValidatorDetails(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	nodeID, err := ids.NodeIDFromString(r.PathValue("nodeId"))
	if err != nil {
		return derrors.Invalid("nodeId must be a node id (NodeID-...), got %s", got(r.PathValue("nodeId")))
	}
	status, err := param.Enum(r, "validationStatus", "", statusCompleted, statusActive, statusPending, statusRemoved)
	if err != nil {
		return err
	}
	order, err := SortOrder(r, Desc)
	if err != nil {
		return err
	}
	desc := order == Desc
	var view *validatorView
	items, next, err := listPage(a, r, listSpec{Op: "getSingleValidatorDetails", Filters: []string{nodeID.String(), status, order}},
		func(ctx context.Context, after *vKey, limit int) ([]*valItem, error) {
			v, err := a.validatorView(ctx)
			if err != nil {
				return nil, err
			}
			view = v
			var out []*valItem
			walk(v.byNode[nodeID], func(i int32) vKey { return valKey(&v.vals[i], "start") }, after, desc, func(i int32) bool {
				if it := &v.vals[i]; status == "" || it.status == status {
					out = append(out, it)
				}
				return len(out) < limit
			})
			return out, nil
		},
		func(v *valItem) vKey { return valKey(v, "start") })
	if err != nil {
		return err
	}
	out, err := a.renderValidators(r.Context(), view, items)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, ListValidatorDetailsResponse{NextPageToken: next, Validators: out})
	return nil
}

// feePercent is a delegation fee in millionths as the hosted API writes
// percentages: four decimals.
func feePercent(shares uint32) string {
	return fmt.Sprintf("%d.%04d", shares/10_000, shares%10_000)
}

// validatorHealth is an active validator's health as the indexed node
// sees it now, each percentage 100 or 0: reachable when the node is
// connected to it, benched on a chain while the node benches it there.
func (a *API) validatorHealth(u Uptime) *ValidatorHealthDetails {
	pct := func(b bool) float64 {
		if b {
			return 100
		}
		return 0
	}
	benched := func(alias string, id ids.ID) float64 {
		return pct(slices.ContainsFunc(u.BenchedOn, func(c string) bool { return c == alias || c == id.String() }))
	}
	return &ValidatorHealthDetails{ReachabilityPercent: pct(u.Connected),
		BenchedPChainRequestsPercent: benched("P", a.network.PChainID),
		BenchedXChainRequestsPercent: benched("X", a.network.XChainID),
		BenchedCChainRequestsPercent: benched("C", a.network.CChainID)}
}

// delegationFees is a validation's delegationRewardAmount: the fees its
// delegators paid it before Cortina, those it accrued from Cortina on (paid
// at its end), and, while it is active, those its current delegators will
// pay if rewarded.
func (it *valItem) delegationFees() uint64 {
	fees := it.row.DelegateeReward + it.paidFees
	if it.status == statusActive {
		fees += it.feeEstimate
	}
	return fees
}

// renderValidators renders a page of view's validators.
func (a *API) renderValidators(ctx context.Context, view *validatorView, items []*valItem) ([]ValidatorDetails, error) {
	out := make([]ValidatorDetails, 0, len(items))
	if len(items) == 0 {
		return out, nil
	}
	txIDs := make([]ids.ID, len(items))
	for i, it := range items {
		txIDs[i] = it.row.TxID
	}
	recs, err := a.store.StakersByTxID(ctx, txIDs)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		rec := recs[it.row.TxID]
		if rec == nil {
			return nil, fmt.Errorf("staker %s is gone from the store", it.row.TxID)
		}
		d := ValidatorDetails{TxHash: it.row.TxID.String(), NodeID: it.nodeID, SubnetID: it.row.SubnetID.String(),
			AmountStaked: strconv.FormatUint(it.row.Weight, 10), StartTimestamp: it.row.StartTime, EndTimestamp: it.row.EndTime,
			ValidationStatus: it.status}
		if it.row.Kind != internal.StakerSubnetValidator {
			d.DelegationFee = feePercent(it.row.DelegationShares)
		}
		if rec.PublicKey != nil {
			d.BlsCredentials = &BlsCredentials{PublicKey: "0x" + fmt.Sprintf("%x", rec.PublicKey),
				ProofOfPossession: "0x" + fmt.Sprintf("%x", rec.ProofOfPossession)}
		}
		var rewardAddrs []string
		if rec.ValidationRewardOwner != nil {
			if rewardAddrs, err = a.bech32s(rec.ValidationRewardOwner.Addresses); err != nil {
				return nil, err
			}
		}
		switch it.status {
		case statusActive:
			n := it.delegatorCount
			d.DelegatorCount, d.AmountDelegated = &n, strconv.FormatUint(it.delegated, 10)
			pct := 0.0
			if t := view.activeStake[it.row.SubnetID]; t != nil && t.Sign() > 0 {
				pct, _ = new(big.Rat).SetFrac(new(big.Int).Mul(new(big.Int).SetUint64(it.row.Weight), big.NewInt(100)), t).Float64()
			}
			d.StakePercentage = &pct
			up := it.uptime.Percent
			d.UptimePerformance = &up
			if it.hasCapacity {
				d.DelegationCapacity = strconv.FormatUint(it.capacity, 10)
			}
			var vr uint64
			if it.row.PotentialReward != nil {
				vr = *it.row.PotentialReward
			}
			d.PotentialRewards = &Rewards{ValidationRewardAmount: strconv.FormatUint(vr, 10),
				DelegationRewardAmount: strconv.FormatUint(it.delegationFees(), 10), RewardAddresses: rewardAddrs}
			d.AvalancheGoVersion = it.uptime.Version
			d.ValidatorHealth = a.validatorHealth(it.uptime)
			d.Geolocation = &json0{}
		case statusCompleted:
			n := it.delegatorCount
			d.DelegatorCount, d.AmountDelegated = &n, strconv.FormatUint(it.delegated, 10)
			// The delegation fees are paid whether the validation's reward
			// commits or aborts (avalanchego's rewardValidatorTx pays the
			// accrued fee on both paths; before Cortina each delegator's
			// reward paid its share).
			rw := &Rewards{ValidationRewardAmount: "0", RewardAddresses: rewardAddrs,
				DelegationRewardAmount: strconv.FormatUint(it.delegationFees(), 10)}
			if it.row.Removed {
				rw.RewardTxHash = rec.RemovedTxID.String()
			}
			if it.row.RewardCommitted && it.row.PotentialReward != nil {
				rw.ValidationRewardAmount = strconv.FormatUint(*it.row.PotentialReward, 10)
			}
			d.Rewards = rw
		case statusRemoved:
			d.RemoveTxHash = rec.RemovedTxID.String()
			b, err := a.store.BlockSummaryByHeight(ctx, store.BlockQuery{Chain: internal.PChain}, rec.RemovedHeight)
			if err != nil {
				return nil, err
			}
			t := uint64(max(b.Timestamp.Unix(), 0))
			d.RemoveTimestamp = &t
		}
		out = append(out, d)
	}
	return out, nil
}

// listDelegators serves listDelegators.
func (a *API) listDelegators(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	addrs, err := Addresses(r, "rewardAddresses", MaxDelegatorAddresses, a.network.HRP)
	if err != nil {
		return err
	}
	owners := make([]ids.ShortID, len(addrs))
	for i, ad := range addrs {
		owners[i] = ad.ID
	}
	nodes, err := NodeIDs(r, "nodeIds", MaxValidatorNodeIDs)
	if err != nil {
		return err
	}
	status, err := param.Enum(r, "delegationStatus", "", statusCompleted, statusActive, statusPending)
	if err != nil {
		return err
	}
	order, err := SortOrder(r, Desc)
	if err != nil {
		return err
	}
	desc := order == Desc
	spec := listSpec{Op: "listDelegators", Filters: []string{addressesKey(owners), nodesKey(nodes), status, order}}
	items, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *vKey, limit int) ([]*delItem, error) {
			v, err := a.validatorView(ctx)
			if err != nil {
				return nil, err
			}
			var out []*delItem
			walk(v.delOrder, func(i int32) vKey { return delKey(&v.dels[i]) }, after, desc, func(i int32) bool {
				d := &v.dels[i]
				if (status == "" || d.status == status) && (len(nodes) == 0 || slices.Contains(nodes, d.row.NodeID)) &&
					(len(owners) == 0 || slices.ContainsFunc(d.row.RewardAddresses, func(a ids.ShortID) bool { return slices.Contains(owners, a) })) {
					out = append(out, d)
				}
				return len(out) < limit
			})
			return out, nil
		},
		delKey)
	if err != nil {
		return err
	}
	resp := ListDelegatorDetailsResponse{NextPageToken: next, Delegators: make([]DelegatorDetails, 0, len(items))}
	for _, d := range items {
		addrs, err := a.bech32s(d.row.RewardAddresses)
		if err != nil {
			return err
		}
		var shares uint32
		if d.validator != nil {
			shares = d.validator.row.DelegationShares
		}
		var gross uint64
		if d.row.PotentialReward != nil {
			gross = *d.row.PotentialReward
		}
		_, net := reward.Split(gross, shares)
		item := DelegatorDetails{TxHash: d.row.TxID.String(), NodeID: d.row.NodeID.String(), RewardAddresses: addrs,
			AmountDelegated: strconv.FormatUint(d.row.Weight, 10), DelegationFee: feePercent(shares),
			StartTimestamp: d.row.StartTime, EndTimestamp: d.row.EndTime, DelegationStatus: d.status}
		if item.RewardAddresses == nil {
			item.RewardAddresses = []string{}
		}
		switch d.status {
		case statusCompleted:
			if !d.row.RewardCommitted {
				gross, net = 0, 0
			}
			item.GrossReward, item.NetReward = strconv.FormatUint(gross, 10), strconv.FormatUint(net, 10)
		default:
			item.EstimatedGrossReward, item.EstimatedNetReward = strconv.FormatUint(gross, 10), strconv.FormatUint(net, 10)
		}
		resp.Delegators = append(resp.Delegators, item)
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// listL1Validators serves listL1Validators.
func (a *API) listL1Validators(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	var q store.L1ValidatorQuery
	var vidKey, nodeKey, subnetKey string
	if v, ok, err := param.QueryValue(r, "l1ValidationId"); err != nil {
		return err
	} else if ok {
		id, err := ids.FromString(v)
		if err != nil {
			return derrors.Invalid("l1ValidationId must be a validation id (cb58), got %s", got(v))
		}
		q.ValidationID, vidKey = &id, id.String()
	}
	if v, ok, err := param.QueryValue(r, "nodeId"); err != nil {
		return err
	} else if ok {
		id, err := ids.NodeIDFromString(v)
		if err != nil {
			return derrors.Invalid("nodeId must be a node id (NodeID-...), got %s", got(v))
		}
		q.NodeID, nodeKey = &id, id.String()
	}
	var err error
	if q.SubnetID, err = subnetParam(r); err != nil {
		return err
	}
	if q.SubnetID != nil {
		subnetKey = q.SubnetID.String()
	}
	if q.Inactive, err = param.Bool(r, "includeInactiveL1Validators", false); err != nil {
		return err
	}
	height, _, _, err := a.store.PChainTip(r.Context())
	if err != nil {
		return err
	}
	spec := listSpec{Op: "listL1Validators", Filters: []string{vidKey, nodeKey, subnetKey, strconv.FormatBool(q.Inactive)}}
	vs, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *store.L1ValidatorKey, limit int) ([]*internal.L1Validator, error) {
			return a.store.L1ValidatorPage(ctx, q, after, limit)
		},
		func(v *internal.L1Validator) store.L1ValidatorKey {
			return store.L1ValidatorKey{Height: v.AddedHeight, ValidationID: v.ValidationID}
		})
	if err != nil {
		return err
	}
	vids := make([]ids.ID, len(vs))
	for i, v := range vs {
		vids[i] = v.ValidationID
	}
	balances, err := a.store.L1Balances(r.Context(), vids)
	if err != nil {
		return err
	}
	resp := ListL1ValidatorsResponse{NextPageToken: next, Validators: make([]L1ValidatorDetailsFull, 0, len(vs)),
		BlockHeight: strconv.FormatUint(height, 10)}
	for _, v := range vs {
		item := L1ValidatorDetailsFull{ValidationID: v.ValidationID.String(), ValidationIDHex: fmt.Sprintf("0x%x", v.ValidationID[:]),
			NodeID: v.NodeID.String(), SubnetID: v.SubnetID.String(), Weight: v.Weight, CreationTimestamp: v.StartTime,
			BlsCredentials: L1BlsCredentials{PublicKey: fmt.Sprintf("0x%x", v.PublicKey)}}
		if v.Active && v.Weight > 0 {
			item.RemainingBalance = balances[v.ValidationID]
		}
		if item.RemainingBalanceOwner, err = a.balanceOwner(v.RemainingBalanceOwner); err != nil {
			return err
		}
		if item.DeactivationOwner, err = a.balanceOwner(v.DeactivationOwner); err != nil {
			return err
		}
		resp.Validators = append(resp.Validators, item)
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

func (a *API) balanceOwner(o *internal.StakerOwner) (L1BalanceOwner, error) {
	out := L1BalanceOwner{Addresses: []string{}}
	if o == nil {
		return out, nil
	}
	addrs, err := a.bech32s(o.Addresses)
	if err != nil {
		return out, err
	}
	out.Addresses, out.Threshold = addrs, o.Threshold
	return out, nil
}
