package metricsapi

// Wire types of the Metrics API (metrics-api-openapi.yml).

// LegacyMetric is one point of a v1 series (LegacyEvmMetric).
type LegacyMetric struct {
	Timestamp int64   `json:"timestamp"`
	Value     float64 `json:"value"`
}

// LegacyMetricsResponse is a v1 series page (LegacyEvmMetricsResponse),
// with nextPageToken beside nextPageStartKey: the spec's name and the
// hosted v1's for the same token.
type LegacyMetricsResponse struct {
	Results          []LegacyMetric `json:"results"`
	Status           int            `json:"status"`
	LastRun          int64          `json:"lastRun"`
	NextPageToken    string         `json:"nextPageToken,omitempty"`
	NextPageStartKey string         `json:"nextPageStartKey,omitempty"`
}

// MetricsValue is one point of a v2 series.
type MetricsValue struct {
	Value     float64 `json:"value"`
	Timestamp int64   `json:"timestamp"`
}

// MetricsResponse is a v2 series page (MetricsApiResponse).
type MetricsResponse struct {
	NextPageToken string         `json:"nextPageToken,omitempty"`
	Results       []MetricsValue `json:"results"`
}

// Chain is a chain of /v2/chains.
type Chain struct {
	EVMChainID   uint64 `json:"evmChainId"`
	ChainName    string `json:"chainName"`
	BlockchainID string `json:"blockchainId"`
	SubnetID     string `json:"subnetId"`
	Network      string `json:"network"`
}

// ListChainsResponse is /v2/chains.
type ListChainsResponse struct {
	NextPageToken string  `json:"nextPageToken,omitempty"`
	Chains        []Chain `json:"chains"`
}

// RollingWindowResponse is a metric over the rolling windows
// (RollingWindowMetricsApiResponse): a field per window of
// ChainRollingWindowMetricsValue the metric has.
type RollingWindowResponse struct {
	Result map[string]float64 `json:"result"`
}

// HealthIndicator is one check's state (HealthIndicatorResultDto).
type HealthIndicator struct {
	Status string `json:"status"`
}

// HealthResponse is the health check (HealthCheckResultDto).
type HealthResponse struct {
	Status  string                     `json:"status"`
	Info    map[string]HealthIndicator `json:"info"`
	Error   map[string]HealthIndicator `json:"error"`
	Details map[string]HealthIndicator `json:"details"`
}

// PChainAddressDetails is a validator's reward addresses (bech32, without
// the chain prefix) and the time it was added.
type PChainAddressDetails struct {
	Addresses []string `json:"addresses"`
	SortKey   string   `json:"sortKey"`
}

// PChainLookingGlassResponse is a page of getValidatorsByDateRange.
type PChainLookingGlassResponse struct {
	NextPageToken string                 `json:"nextPageToken,omitempty"`
	Addresses     []PChainAddressDetails `json:"addresses"`
}
