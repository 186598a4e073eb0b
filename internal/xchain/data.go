package xchain

import "github.com/avaindex/avaindex/internal"

// Data returns what the store keeps of b.
func (b *Block) Data() *internal.XBlockData {
	d := &internal.XBlockData{Height: b.Height, ID: b.ID, ParentID: b.ParentID, Timestamp: b.Timestamp, Bytes: b.Bytes,
		Txs: make([]internal.XTxData, len(b.Txs)), Genesis: b.Genesis.data()}
	for i, t := range b.Txs {
		d.Txs[i] = t.data()
	}
	return d
}

// BlocksData returns what the store keeps of blocks, in their order.
func BlocksData(blocks []*Block) []*internal.XBlockData {
	out := make([]*internal.XBlockData, len(blocks))
	for i, b := range blocks {
		if b != nil {
			out[i] = b.Data()
		}
	}
	return out
}

// DAGTxsData returns what the store keeps of pre-Cortina txs, in their
// order.
func DAGTxsData(dtxs []*DAGTx) []*internal.XDAGTxData {
	out := make([]*internal.XDAGTxData, len(dtxs))
	for i, t := range dtxs {
		if t != nil {
			out[i] = &internal.XDAGTxData{XTxData: t.Tx.data(), Index: t.Index, Timestamp: t.Timestamp, Genesis: t.Genesis.data()}
		}
	}
	return out
}

func (t *Tx) data() internal.XTxData {
	d := internal.XTxData{XTx: t.XTx}
	if t.UTXOs != nil {
		d.UTXOs = &internal.UTXOEffects{Consumed: t.UTXOs.Consumed, Imported: t.UTXOs.Imported, Produced: t.UTXOs.Produced}
	}
	return d
}

func (g *Genesis) data() *internal.XGenesisData {
	if g == nil {
		return nil
	}
	return &internal.XGenesisData{Timestamp: g.Timestamp, UTXOs: g.UTXOs}
}

// DecodeUTXOBlock decodes the stored block at height as its chain metrics
// read it; the genesis block (height 0) is not decoded: the metrics skip
// it.
func DecodeUTXOBlock(height uint64, b []byte) (internal.UTXOBlock, error) {
	if height == 0 {
		return internal.UTXOBlock{}, nil
	}
	xb, err := Decode(height, b, nil)
	if err != nil {
		return internal.UTXOBlock{}, err
	}
	return xb.Data().UTXOBlock(), nil
}
