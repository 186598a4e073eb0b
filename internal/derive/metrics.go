package derive

import (
	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/xchain"
)

// MetricDecoders are the decoders of the P- and X-chain's stored blocks
// for the chain metrics' catch-up at Open (store.WithMetricsCatchUp). The
// genesis block (height 0) is not decoded: the metrics skip it.
func MetricDecoders() map[internal.Chain]store.MetricDecoder {
	return map[internal.Chain]store.MetricDecoder{
		internal.PChain: func(height uint64, b []byte) (internal.UTXOBlock, error) {
			if height == 0 {
				return internal.UTXOBlock{}, nil
			}
			pb, err := pchain.Decode(height, b)
			if err != nil {
				return internal.UTXOBlock{}, err
			}
			return pb.UTXOBlock(), nil
		},
		internal.XChain: func(height uint64, b []byte) (internal.UTXOBlock, error) {
			if height == 0 {
				return internal.UTXOBlock{}, nil
			}
			xb, err := xchain.Decode(height, b, nil)
			if err != nil {
				return internal.UTXOBlock{}, err
			}
			return xb.Data().UTXOBlock(), nil
		},
	}
}
