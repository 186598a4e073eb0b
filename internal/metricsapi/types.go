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
