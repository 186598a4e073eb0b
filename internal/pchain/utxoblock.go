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
