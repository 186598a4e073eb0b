package tests

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/indexer"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	pblock "github.com/ava-labs/avalanchego/vms/platformvm/block"
	proposerblock "github.com/ava-labs/avalanchego/vms/proposervm/block"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derive"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

const nodeBlocksPath = "/v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks"

// nodeProposal is a block as the node's container index tells of its
// proposer.
type nodeProposal struct {
	height             uint64
	proposerID, parent string
	pHeight            uint64
	time               int64
}

// nodeProposals reads the node's index of chain ("P" or "X") up to its
// last accepted container and returns, by proposer, the blocks each one
// signed (newest first), and the last container's index.
func nodeProposals(t *testing.T, n *testnet.Network, chain string) (map[ids.NodeID][]nodeProposal, uint64, uint64) {
	t.Helper()
	ctx := context.Background()
	c := indexer.NewClient(n.URL + "/ext/index/" + chain + "/block")
	_, last, err := c.GetLastAccepted(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[ids.NodeID][]nodeProposal{}
	var top uint64
	for from := uint64(0); from <= last; from += 1024 {
		cs, err := c.GetContainerRange(ctx, from, int(min(1024, last-from+1)))
		if err != nil {
			t.Fatal(err)
		}
		for _, ct := range cs {
			b, err := proposerblock.ParseWithoutVerification(ct.Bytes)
			if err != nil {
				continue
			}
			sb, ok := b.(proposerblock.SignedBlock)
			if !ok || sb.Proposer() == ids.EmptyNodeID {
				continue
			}
			var h uint64
			if chain == "P" {
				inner, err := pblock.Parse(pblock.Codec, sb.Block())
				if err != nil {
					t.Fatal(err)
				}
				h = inner.Height()
			} else {
				inner, err := builder.Parser.ParseBlock(sb.Block())
				if err != nil {
					t.Fatal(err)
				}
				h = inner.Height()
			}
			top = max(top, h)
			out[sb.Proposer()] = append(out[sb.Proposer()], nodeProposal{height: h, proposerID: sb.ID().String(),
				parent: sb.ParentID().String(), pHeight: sb.PChainHeight(), time: sb.Timestamp().Unix()})
		}
	}
	for _, ps := range out {
		slices.Reverse(ps)
	}
	return out, last, top
}

// TestBlocksByNodeDataAPI checks listPrimaryNetworkBlocksByNodeId on the
// P- and X-chain against the proposers the node's container indexes
// show, on both stores, each page validated against the reference. On
// the custom network: the local one, without sybil protection, has no
// validator set to sign blocks, and all its blocks are unsigned.
func TestBlocksByNodeDataAPI(t *testing.T) {
	n := testnet.GetCustom(t)
	doc := openapitest.Default(t)
	signedBlocks(t, n)
	want := map[string]map[ids.NodeID][]nodeProposal{}
	lastIdx, tops := map[string]uint64{}, map[string]uint64{}
	for _, ch := range []string{"P", "X"} {
		want[ch], lastIdx[ch], tops[ch] = nodeProposals(t, n, ch)
		if len(want[ch]) == 0 {
			t.Fatalf("the node's %s/block index has no signed block: the test would prove nothing", ch)
		}
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--network-alias", "testnet")
		st, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		waitProposers(t, st, lastIdx, tops)
		c := &txChecker{t: t, n: n, doc: doc, api: base + "/v1/networks/testnet/blockchains/"}
		for _, ch := range []string{"P", "X"} {
			chain := strings.ToLower(ch) + "-chain"
			for node, ps := range want[ch] {
				var got []nodeProposal
				for _, raw := range c.pageAll(chain+"/nodes/"+node.String()+"/blocks", nodeBlocksPath, "blocks", 3) {
					var b struct {
						BlockNumber     string
						BlockTimestamp  int64
						ProposerDetails struct {
							ProposerID, ProposerParentID, ProposerNodeID string
							ProposerPChainHeight                         uint64
							ProposerTimestamp                            int64
						}
					}
					if err := json.Unmarshal(raw, &b); err != nil {
						t.Fatal(err)
					}
					h, _ := strconv.ParseUint(b.BlockNumber, 10, 64)
					if h > tops[ch] {
						continue // proposed after the node was read
					}
					if b.ProposerDetails.ProposerNodeID != node.String() {
						t.Errorf("%s: block %d of node %s names proposer %s", chain, h, node, b.ProposerDetails.ProposerNodeID)
					}
					pd := b.ProposerDetails
					got = append(got, nodeProposal{height: h, proposerID: pd.ProposerID, parent: pd.ProposerParentID,
						pHeight: pd.ProposerPChainHeight, time: pd.ProposerTimestamp})
				}
				if !slices.Equal(got, ps) {
					t.Errorf("%s: node %s proposed %d blocks, the node's index shows %d:\ngot  %+v\nwant %+v", chain, node, len(got), len(ps), got, ps)
				}
			}
			// A node that proposed nothing, and the time range.
			var none struct{ Blocks []json.RawMessage }
			c.fetch(chain+"/nodes/"+ids.GenerateTestNodeID().String()+"/blocks", nodeBlocksPath, "", &none)
			if len(none.Blocks) != 0 {
				t.Errorf("%s: a node that proposed nothing has %d blocks", chain, len(none.Blocks))
			}
			for node, ps := range want[ch] {
				ts := ps[len(ps)-1].time
				var page struct {
					Blocks []struct {
						ProposerDetails struct{ ProposerTimestamp int64 }
					}
				}
				c.fetch(chain+"/nodes/"+node.String()+"/blocks?pageSize=100&startTimestamp="+strconv.FormatInt(ts, 10)+
					"&endTimestamp="+strconv.FormatInt(ts, 10), nodeBlocksPath, "", &page)
				if len(page.Blocks) == 0 {
					t.Errorf("%s: node %s has no block at %d, its first", chain, node, ts)
				}
				for _, b := range page.Blocks {
					if b.ProposerDetails.ProposerTimestamp != ts {
						t.Errorf("%s: a block of time %d listed for [%d, %d]", chain, b.ProposerDetails.ProposerTimestamp, ts, ts)
					}
				}
				break
			}
		}
		// A store mirrored before block_proposers existed gains the same
		// rows from its containers when it opens.
		checkProposersBackfill(t, dsn, lastIdx)
		for _, bad := range []struct{ path, param string }{
			{"c-chain/nodes/" + ids.GenerateTestNodeID().String() + "/blocks", "blockchainId"},
			{"p-chain/nodes/nope/blocks", "nodeId"},
			{"p-chain/nodes/" + ids.GenerateTestNodeID().String() + "/blocks?startTimestamp=x", "startTimestamp"},
		} {
			status, body, _ := get(t, c.api+bad.path)
			if status != http.StatusBadRequest || !strings.Contains(string(body), bad.param) {
				t.Errorf("GET %s: %d %s, want 400 naming %s", bad.path, status, body, bad.param)
			}
		}
	})
}

func checkProposersBackfill(t *testing.T, dsn string, lastIdx map[string]uint64) {
	ctx := context.Background()
	db, err := database.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dump := func() []string {
		var out []string
		for _, ch := range []string{"P", "X"} {
			err := db.RunQuery(ctx, `SELECT node_id, idx, block_id, proposer_id, parent_id, p_chain_height, timestamp
				FROM block_proposers WHERE index_name = ? AND idx <= ? ORDER BY idx`, func(r *sql.Rows) error {
				var (
					node, block, prop, parent []byte
					idx, ph, ts               int64
				)
				if err := r.Scan(&node, &idx, &block, &prop, &parent, &ph, &ts); err != nil {
					return err
				}
				out = append(out, fmt.Sprintf("%s %d %x %x %x %x %d %d", ch, idx, node, block, prop, parent, ph, ts))
				return nil
			}, ch+"/block", int64(lastIdx[ch]))
			if err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	want := dump()
	if len(want) == 0 {
		t.Fatal("no block_proposers rows: the backfill check would prove nothing")
	}
	for _, q := range []string{"DELETE FROM block_proposers", "INSERT INTO settings (key, value) VALUES ('backfill:block_proposers', '')"} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := derive.RunBackfills(ctx, st, slog.New(slog.NewTextHandler(io.Discard, nil)), derive.BackfillOptions{Chunk: 3}); err != nil {
		t.Fatal(err)
	}
	if got := dump(); !slices.Equal(got, want) {
		t.Errorf("the backfilled block_proposers differ:\ngot  %v\nwant %v", got, want)
	}
}

// signedBlocks adds blocks to the P- and X-chain of the custom network,
// signed by its validator (a fresh network's first block on each chain is
// not).
func signedBlocks(t *testing.T, n *testnet.Network) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := []*avax.TransferableOutput{{Asset: avax.Asset{ID: n.AVAXAssetID}, Out: &secp256k1fx.TransferOutput{
		Amt: 1000, OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{n.Addr}}}}}
	err := n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		for range 3 {
			if _, err := w.P().IssueBaseTx(out); err != nil {
				return err
			}
			if _, err := w.X().IssueBaseTx(out); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// waitProposers waits until the store indexed the P- and X-chain to tops
// and mirrored their block indexes to lastIdx.
func waitProposers(t *testing.T, st store.Store, lastIdx, tops map[string]uint64) {
	t.Helper()
	for _, ch := range []string{"P", "X"} {
		waitCursor(t, st, internal.Chain(ch), tops[ch])
		deadline := time.Now().Add(time.Minute)
		for {
			s, err := st.IndexState(context.Background(), ch+"/block")
			if err != nil {
				t.Fatal(err)
			}
			if s.HasLast && s.Last >= lastIdx[ch] {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the %s/block index was not mirrored to %d within a minute", ch, lastIdx[ch])
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}
