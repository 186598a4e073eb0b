package metricsapi

import (
	"net/http"
	"strconv"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
)

// Looking Glass pages: 1,000 addresses by default, at most 5,000.
const (
	defaultLookingGlassPage = 1000
	maxLookingGlassPage     = 5000
)

// validatorsByDateRange serves GET
// /v2/subnets/{subnetId}/validators:getAddresses: the reward addresses of
// the subnet's validators whose validation period meets
// [startTimestamp, endTimestamp], each with the time it was added as its
// sortKey, by that time.
func (a *API) validatorsByDateRange(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r, "startTimestamp", "endTimestamp", "pageToken", "pageSize", "network"); err != nil {
		return err
	}
	subnet, err := ids.FromString(r.PathValue("subnetId"))
	if err != nil {
		return derrors.Invalid("subnetId must be a subnet id (cb58), got %s", derrors.Echo(r.PathValue("subnetId")))
	}
	if v, ok, err := param.QueryValue(r, "network"); err != nil {
		return err
	} else if ok {
		if err := a.checkNetwork(v); err != nil {
			return err
		}
	}
	from, to, err := rangeParams(r, "startTimestamp", "endTimestamp")
	if err != nil {
		return err
	}
	size, err := param.PageSize(r, defaultLookingGlassPage, maxLookingGlassPage)
	if err != nil {
		return err
	}
	token, err := param.PageToken(r)
	if err != nil {
		return err
	}
	now := a.now()
	scope := param.Scope("v2/subnets/validators:getAddresses", subnet.String(), strconv.FormatInt(from, 10), strconv.FormatInt(to, 10))
	offset := int64(0)
	if token != "" {
		if offset, err = a.tokens.decode(token, scope, now); err != nil {
			return err
		}
	}
	vs, err := a.store.ValidatorRewardOwners(r.Context(), subnet, from, to, int(offset), size+1)
	if err != nil {
		return err
	}
	res := PChainLookingGlassResponse{Addresses: []PChainAddressDetails{}}
	if len(vs) > size {
		res.NextPageToken = a.tokens.encode(scope, offset+int64(size), now)
		vs = vs[:size]
	}
	for _, v := range vs {
		d := PChainAddressDetails{Addresses: make([]string, len(v.Addresses)), SortKey: strconv.FormatInt(v.Start, 10)}
		for i, addr := range v.Addresses {
			if d.Addresses[i], err = address.FormatBech32(a.network.HRP, addr[:]); err != nil {
				return err
			}
		}
		res.Addresses = append(res.Addresses, d)
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}
