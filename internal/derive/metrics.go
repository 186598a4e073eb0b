package derive

import (
	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/xchain"
)

// MetricDecoders are the decoders of the P- and X-chain's stored blocks
// for the chain metrics' catch-up at Open (store.WithMetricsCatchUp).
func MetricDecoders() map[internal.Chain]store.MetricDecoder {
	return map[internal.Chain]store.MetricDecoder{
		internal.PChain: pchain.DecodeUTXOBlock,
		internal.XChain: xchain.DecodeUTXOBlock,
	}
}
