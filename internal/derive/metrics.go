package derive

import (
	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/xchain"
)

// metricDecoders are the decoders of the P- and X-chain's stored blocks
// for the chain metrics' catch-up (store.CatchUpMetrics): the store
// decodes nothing.
var metricDecoders = map[internal.Chain]store.MetricDecoder{
	internal.PChain: pchain.DecodeUTXOBlock,
	internal.XChain: xchain.DecodeUTXOBlock,
}
