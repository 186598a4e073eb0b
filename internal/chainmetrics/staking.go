package chainmetrics

// The staking metrics of a subnet (getStakingMetrics): its validators'
// and delegators' count and weight at a time.

// NetworkMetric is a staking metric, named as the Metrics API's
// NetworkMetric.
type NetworkMetric string

const (
	DelegatorCount  NetworkMetric = "delegatorCount"
	DelegatorWeight NetworkMetric = "delegatorWeight"
	ValidatorCount  NetworkMetric = "validatorCount"
	ValidatorWeight NetworkMetric = "validatorWeight"
)

// NetworkMetrics are every staking metric, in the schema's order.
var NetworkMetrics = []NetworkMetric{DelegatorCount, DelegatorWeight, ValidatorCount, ValidatorWeight}

// Staker is a staker's time on a validator set: on it from Start to End
// (unix seconds, End excluded).
type Staker struct {
	Start, End int64
	Weight     uint64
	Delegator  bool
}

// StakingValue is m over stakers at time t: the validators (or delegators)
// on the set at t, counted or their weights summed.
func StakingValue(m NetworkMetric, stakers []Staker, t int64) float64 {
	delegators := m == DelegatorCount || m == DelegatorWeight
	count := m == DelegatorCount || m == ValidatorCount
	var v float64
	for _, s := range stakers {
		if s.Delegator != delegators || s.Start > t || s.End <= t {
			continue
		}
		if count {
			v++
		} else {
			v += float64(s.Weight)
		}
	}
	return v
}
