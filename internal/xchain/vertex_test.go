package xchain

import (
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/engine/avalanche/vertex"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
)

// rawVertex has the serialized fields of avalanchego's vertex (codec
// version 0) with none of its checks, to build vertices vertex.Build
// refuses: the node's codec still parses them.
type rawVertex struct {
	ChainID   ids.ID   `serializeV0:"true"`
	Height    uint64   `serializeV0:"true"`
	Epoch     uint32   `serializeV0:"true"`
	ParentIDs []ids.ID `serializeV0:"true"`
	Txs       [][]byte `serializeV0:"true"`
}

func rawVertexBytes(t testing.TB, v rawVertex) []byte {
	t.Helper()
	b, err := vertex.Codec.Marshal(vertex.CodecVersion, &v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rfc3339(sec int64) string { return time.Unix(sec, 5e8).UTC().Format(time.RFC3339Nano) }

func TestDecodeVertex(t *testing.T) {
	seeds := fuzzSeedTxs(t)
	chainID := ids.ID{0xc}
	txBytes := func(ts ...*txs.Tx) [][]byte {
		var out [][]byte
		for _, tx := range ts {
			out = append(out, tx.Bytes())
		}
		return out
	}
	two, err := vertex.Build(chainID, 3, []ids.ID{{2}, {1}}, txBytes(seeds[0], seeds[1]))
	if err != nil {
		t.Fatal(err)
	}
	one, err := vertex.Build(chainID, 4, []ids.ID{two.ID()}, txBytes(seeds[2]))
	if err != nil {
		t.Fatal(err)
	}
	stop, err := vertex.BuildStopVertex(chainID, 5, []ids.ID{one.ID()})
	if err != nil {
		t.Fatal(err)
	}
	// Unverified: a vertex carrying one tx twice (the node's checks refuse
	// it, but it parses) lists the tx once.
	dup := rawVertexBytes(t, rawVertex{ChainID: chainID, Height: 9, Txs: txBytes(seeds[3], seeds[3], seeds[4])})

	for _, c := range []struct {
		name   string
		index  uint64
		b      []byte
		height uint64
		stop   bool
		txs    []ids.ID
	}{
		{"two txs", 0, two.Bytes(), 3, false, []ids.ID{seeds[0].ID(), seeds[1].ID()}},
		{"one tx", 1, one.Bytes(), 4, false, []ids.ID{seeds[2].ID()}},
		{"stop vertex", 2, stop.Bytes(), 5, true, nil},
		{"a tx twice", 3, dup, 9, false, []ids.ID{seeds[3].ID(), seeds[4].ID()}},
	} {
		t.Run(c.name, func(t *testing.T) {
			parsed, err := vertex.Parse(c.b)
			if err != nil {
				t.Fatal(err)
			}
			id := parsed.ID()
			v, err := DecodeVertex(c.index, id, c.b, rfc3339(1_600_000_000+int64(c.index)))
			if err != nil {
				t.Fatal(err)
			}
			if v.Index != c.index || v.ID != id || v.Height != c.height || v.Stop != c.stop ||
				!v.Timestamp.Equal(time.Unix(1_600_000_000+int64(c.index), 5e8)) {
				t.Errorf("DecodeVertex = %+v", v)
			}
			got, want := slices.Clone(v.TxIDs), slices.Clone(c.txs)
			slices.SortFunc(got, ids.ID.Compare)
			slices.SortFunc(want, ids.ID.Compare)
			if !slices.Equal(got, want) {
				t.Errorf("tx ids %v, want %v", v.TxIDs, c.txs)
			}
		})
	}
	if two.ID() == one.ID() || one.ID() == stop.ID() {
		t.Fatal("vertices share an id")
	}

	// Malformed input is an error, never a panic.
	other := two.ID()
	other[0] ^= 1
	for name, c := range map[string]struct {
		id ids.ID
		b  []byte
		ts string
	}{
		"empty":             {ids.Empty, []byte{}, rfc3339(1)},
		"truncated":         {two.ID(), two.Bytes()[:len(two.Bytes())-1], rfc3339(1)},
		"trailing byte":     {two.ID(), append(slices.Clone(two.Bytes()), 0), rfc3339(1)},
		"unknown version":   {two.ID(), append([]byte{0, 7}, two.Bytes()[2:]...), rfc3339(1)},
		"another id":        {other, two.Bytes(), rfc3339(1)},
		"a tx, not vertex":  {seeds[0].ID(), seeds[0].Bytes(), rfc3339(1)},
		"timestamp not RFC": {two.ID(), two.Bytes(), "yesterday"},
	} {
		if v, err := DecodeVertex(7, c.id, c.b, c.ts); err == nil {
			t.Errorf("%s: decoded %+v", name, v)
		}
	}
}
