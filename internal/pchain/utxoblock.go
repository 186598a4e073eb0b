package pchain

import "github.com/avaindex/avaindex/internal"

// UTXOBlock returns b as its chain metrics read it: what its txs do to
// UTXOs.
func (b *Block) UTXOBlock() internal.UTXOBlock {
	ub := internal.UTXOBlock{Height: b.Height, Time: b.Timestamp, Txs: len(b.Txs)}
	for _, t := range b.Txs {
		if t.UTXOs != nil {
			ub.Effects = append(ub.Effects, internal.UTXOEffects{Consumed: t.UTXOs.Consumed, Imported: t.UTXOs.Imported, Produced: t.UTXOs.Produced})
		}
	}
	return ub
}

// DecodeUTXOBlock decodes the stored block at height as its chain metrics
// read it; the genesis block (height 0) is not decoded: the metrics skip
// it.
func DecodeUTXOBlock(height uint64, b []byte) (internal.UTXOBlock, error) {
	if height == 0 {
		return internal.UTXOBlock{}, nil
	}
	pb, err := Decode(height, b)
	if err != nil {
		return internal.UTXOBlock{}, err
	}
	return pb.UTXOBlock(), nil
}
