package tests

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"

	"github.com/avaindex/avaindex/internal/testing/contracts"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// sdkEVMFacts is what the EVM scenarios did (tests/sdk/evm.test.mjs
// compares the SDK's answers with it): the contracts' scenario's record
// and the node's balances.
type sdkEVMFacts struct {
	ChainID      string `json:"chainId"`      // the EVM chain id, decimal
	BlockchainID string `json:"blockchainId"` // the chain's id, cb58
	// Symbol is the chain's native token's symbol as avaindex serves it.
	Symbol   string `json:"symbol"`
	Deployer string `json:"deployer"`
	Alice    string `json:"alice"`
	Bob      string `json:"bob"`
	// Tokens are the ERC-20, ERC-721 and ERC-1155 contracts, by standard.
	Tokens       map[string]sdkEVMToken `json:"tokens"`
	Factory      string                 `json:"factory"`
	ChildCreate  string                 `json:"childCreate"`
	ChildCreate2 string                 `json:"childCreate2"`
	ChildValue   string                 `json:"childValue"`
	// CreateTx and Create2Tx are the factory's calls that deployed the
	// children, with their blocks.
	CreateTx  sdkEVMTx `json:"createTx"`
	Create2Tx sdkEVMTx `json:"create2Tx"`
	// Transfers are the scenario's token transfers, newest first (a
	// batch's last item first).
	Transfers []sdkEVMTransfer `json:"transfers"`
	// Balances are the node's eth_getBalance of the touched addresses at
	// every block since the scenarios began.
	Balances []sdkEVMBalance `json:"balances"`
}

type sdkEVMToken struct {
	Address  string   `json:"address"`
	Name     string   `json:"name"`
	Symbol   string   `json:"symbol"`
	Decimals *int     `json:"decimals,omitempty"`
	Deploy   sdkEVMTx `json:"deploy"`
}

type sdkEVMTx struct {
	Hash        string `json:"hash"`
	BlockNumber string `json:"blockNumber"`
	BlockHash   string `json:"blockHash"`
	GasUsed     string `json:"gasUsed"`
}

type sdkEVMTransfer struct {
	Standard    string `json:"standard"`
	Contract    string `json:"contract"`
	From        string `json:"from"`
	To          string `json:"to"`
	TokenID     string `json:"tokenId,omitempty"`
	Value       string `json:"value"`
	TxHash      string `json:"txHash"`
	BlockNumber string `json:"blockNumber"`
	BlockHash   string `json:"blockHash"`
}

type sdkEVMBalance struct {
	Address     string `json:"address"`
	BlockNumber string `json:"blockNumber"`
	Balance     string `json:"balance"`
}

// readSDKEVMFacts runs the EVM scenarios (once per process) and returns
// what they did, with the node's balances.
func readSDKEVMFacts(t *testing.T, n *testnet.Network) *sdkEVMFacts {
	t.Helper()
	_, r := evmScenario(t)
	s := r.s
	addrs := []common.Address{s.Deployer, s.Alice, s.Bob, s.ChildCreate, s.ChildCreate2, r.code.Recipient}
	return newSDKEVMFacts(s, n.EVMChainID, n.CChainID.String(), "AVAX", r.blocks, r.nodeBalances(t, n, addrs), addrs, s.First-1, r.head)
}

// newSDKEVMFacts are the facts of the contracts' scenario s on the chain
// chainID (blockchainID, whose native token is symbol), with the node's
// blocks and the balances of addrs at blocks from..to.
func newSDKEVMFacts(s *contracts.Scenario, chainID uint64, blockchainID, symbol string, blocks map[uint64]nodeEVMBlock,
	bals map[common.Address]map[uint64]string, addrs []common.Address, from, to uint64) *sdkEVMFacts {
	tx := func(step string) sdkEVMTx {
		rc := s.Receipts[step]
		return sdkEVMTx{Hash: rc.TxHash.Hex(), BlockNumber: rc.BlockNumber.String(), BlockHash: rc.BlockHash.Hex(),
			GasUsed: strconv.FormatUint(rc.GasUsed, 10)}
	}
	dec := int(s.Token20.Decimals)
	f := &sdkEVMFacts{
		ChainID: strconv.FormatUint(chainID, 10), BlockchainID: blockchainID, Symbol: symbol,
		Deployer: s.Deployer.Hex(), Alice: s.Alice.Hex(), Bob: s.Bob.Hex(),
		Tokens: map[string]sdkEVMToken{
			contracts.ERC20:   {Address: s.Token20.Address.Hex(), Name: s.Token20.Name, Symbol: s.Token20.Symbol, Decimals: &dec, Deploy: tx("deploy erc20")},
			contracts.ERC721:  {Address: s.NFT721.Address.Hex(), Name: s.NFT721.Name, Symbol: s.NFT721.Symbol, Deploy: tx("deploy erc721")},
			contracts.ERC1155: {Address: s.Multi1155.Address.Hex(), Name: s.Multi1155.Name, Symbol: s.Multi1155.Symbol, Deploy: tx("deploy erc1155")},
		},
		Factory: s.Factory.Hex(), ChildCreate: s.ChildCreate.Hex(), ChildCreate2: s.ChildCreate2.Hex(), ChildValue: s.ChildValue.String(),
		CreateTx: tx("factory create"), Create2Tx: tx("factory create2"),
	}
	for i := len(s.Transfers) - 1; i >= 0; i-- {
		tr := s.Transfers[i]
		id := ""
		if tr.TokenID != nil {
			id = tr.TokenID.String()
		}
		f.Transfers = append(f.Transfers, sdkEVMTransfer{Standard: tr.Standard, Contract: tr.Contract.Hex(), From: tr.From.Hex(), To: tr.To.Hex(),
			TokenID: id, Value: tr.Value.String(), TxHash: tr.Tx.Hex(), BlockNumber: strconv.FormatUint(tr.Block, 10),
			BlockHash: blocks[tr.Block].Hash.Hex()})
	}
	for _, a := range addrs {
		for h := from; h <= to; h++ {
			f.Balances = append(f.Balances, sdkEVMBalance{Address: a.Hex(), BlockNumber: strconv.FormatUint(h, 10), Balance: bals[a][h]})
		}
	}
	return f
}

// TestSDKL1 runs the SDK's EVM tests (tests/sdk/evm.test.mjs) against
// avaindex indexing a real subnet-evm L1 that it found on the P-chain: the
// test contracts' scenario on the L1, compared with what the L1's node
// says; and tests/sdk/l1.test.mjs: the scenario's NFTs (A12, A13 and the
// NFT balances) and the Metrics API for the L1.
func TestSDKL1(t *testing.T) {
	installSDK(t)
	r := l1Scenarios(t)
	l, s := r.l, r.nfts
	var facts sdkFacts
	facts.Network = "testnet"
	addrs := []common.Address{s.Deployer, s.Alice, s.Bob, s.ChildCreate, s.ChildCreate2, r.sc.Alice, r.sc.Bob}
	facts.EVM = newSDKEVMFacts(s, l.EVMChainID, l.BlockchainID.String(), "NATIVE", r.blocks, r.balances, addrs, r.first-1, r.head)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	facts.L1 = readSDKL1Facts(ctx, t, r)
	factsFile := writeFacts(t, facts)
	dsn := dbtest.SQLite(t)
	base := startService(t, l.URL, dsn, "--genesis-file", l.GenesisFile, "--network-alias", "testnet")
	waitEVMIndexed(t, dsn, l.EVMChainID, r.head)
	waitSDKL1Derived(ctx, t, base, facts.L1)
	runSDK(t, ctx, base, factsFile, "evm.test.mjs", "l1.test.mjs")
}

// sdkL1Facts is what tests/sdk/l1.test.mjs compares the SDK's answers
// with: the contracts scenario's NFTs on the L1 and the L1's node's blocks
// per hour.
type sdkL1Facts struct {
	ChainID      string `json:"chainId"`
	BlockchainID string `json:"blockchainId"`
	SubnetID     string `json:"subnetId"`
	Alice        string `json:"alice"`
	Bob          string `json:"bob"`
	ERC721       struct {
		Address string `json:"address"`
		Name    string `json:"name"`
		Symbol  string `json:"symbol"`
		// Tokens by id: the URI last set, the metadata's name and
		// description, and the owner.
		Tokens map[string]sdkL1NFT `json:"tokens"`
	} `json:"erc721"`
	ERC1155 struct {
		Address string `json:"address"`
		// Own is token 2, whose URI setURI set.
		Own sdkL1NFT `json:"own"`
	} `json:"erc1155"`
	// Hours are the node's txs and gas per UTC hour of every block of the
	// L1 up to the scenarios' last (Head).
	Hours []sdkL1Hour `json:"hours"`
	Head  uint64      `json:"head"`
	// ERC20 is what listErc20Balances is checked against on the L1.
	ERC20 *sdkL1ERC20Facts `json:"erc20"`
}

type sdkL1NFT struct {
	TokenURI    string `json:"tokenUri"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Owner       string `json:"owner,omitempty"`
}

type sdkL1Hour struct {
	Timestamp int64  `json:"timestamp"`
	TxCount   int    `json:"txCount"`
	GasUsed   uint64 `json:"gasUsed"`
}

// readSDKL1Facts reads the L1 facts: the NFTs' URIs as the scenario set
// them, their metadata decoded from those data: URIs, and every block of
// the L1's node up to the scenarios' last.
func readSDKL1Facts(ctx context.Context, t *testing.T, r *l1Run) *sdkL1Facts {
	t.Helper()
	l, s := r.l, r.nfts
	f := &sdkL1Facts{ChainID: strconv.FormatUint(l.EVMChainID, 10), BlockchainID: l.BlockchainID.String(),
		SubnetID: l.SubnetID.String(), Alice: s.Alice.Hex(), Bob: s.Bob.Hex(), Head: r.head,
		ERC20: readSDKL1ERC20Facts(ctx, t, r)}
	nft := func(uri string, owner common.Address) sdkL1NFT {
		const prefix = "data:application/json;base64,"
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(uri, prefix))
		var doc struct{ Name, Description string }
		if err != nil || !strings.HasPrefix(uri, prefix) || json.Unmarshal(raw, &doc) != nil {
			t.Fatalf("the scenario's token URI %q is not a base64 JSON data: URI", uri)
		}
		out := sdkL1NFT{TokenURI: uri, Name: doc.Name, Description: doc.Description}
		if owner != (common.Address{}) {
			out.Owner = owner.Hex()
		}
		return out
	}
	f.ERC721.Address, f.ERC721.Name, f.ERC721.Symbol = s.NFT721.Address.Hex(), s.NFT721.Name, s.NFT721.Symbol
	f.ERC721.Tokens = map[string]sdkL1NFT{"1": nft(s.NFT721.URIs[1], s.Alice), "2": nft(s.NFT721.URIs[2], s.Bob)}
	f.ERC1155.Address, f.ERC1155.Own = s.Multi1155.Address.Hex(), nft(s.Multi1155.URIs[2], common.Address{})

	ec, err := l.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	byHour := map[int64]*sdkL1Hour{}
	for h := uint64(1); h <= r.head; h++ {
		var b struct {
			GasUsed, Timestamp hexutil.Uint64
			Transactions       []json.RawMessage
		}
		if err := ec.Client().CallContext(ctx, &b, "eth_getBlockByNumber", hexutil.Uint64(h), false); err != nil {
			t.Fatal(err)
		}
		hour := int64(b.Timestamp) / 3600 * 3600
		if byHour[hour] == nil {
			byHour[hour] = &sdkL1Hour{Timestamp: hour}
		}
		byHour[hour].TxCount += len(b.Transactions)
		byHour[hour].GasUsed += uint64(b.GasUsed)
	}
	for _, v := range byHour {
		f.Hours = append(f.Hours, *v)
	}
	slices.SortFunc(f.Hours, func(a, b sdkL1Hour) int { return cmp.Compare(a.Timestamp, b.Timestamp) })
	return f
}

// waitSDKL1Derived waits until avaindex at base fetched the L1 NFTs'
// metadata (token 1's as its last URI has it) and rolled the L1's blocks
// up into the Metrics API's hours.
func waitSDKL1Derived(ctx context.Context, t *testing.T, base string, f *sdkL1Facts) {
	t.Helper()
	nfts := base + "/v1/chains/" + f.ChainID + "/nfts/collections/"
	last := f.Hours[len(f.Hours)-1]
	hourly := fmt.Sprintf("%s/v2/chains/%s/metrics/txCount?timeInterval=hour&startTimestamp=%d&pageSize=100", base, f.ChainID, last.Timestamp)
	for {
		var ready []string
		for _, c := range []struct {
			u    string
			want sdkL1NFT
		}{
			{nfts + f.ERC721.Address + "/tokens/1", f.ERC721.Tokens["1"]},
			{nfts + f.ERC721.Address + "/tokens/2", f.ERC721.Tokens["2"]},
			{nfts + f.ERC1155.Address + "/tokens/2", f.ERC1155.Own},
		} {
			var tok nftToken
			if status, body, _ := get(t, c.u); status != http.StatusOK || json.Unmarshal(body, &tok) != nil ||
				tok.Metadata.IndexStatus == "UNINDEXED" || tok.TokenURI != c.want.TokenURI || tok.Metadata.Description != c.want.Description {
				ready = append(ready, c.u+": "+string(body))
			}
		}
		var series struct {
			Results []struct {
				Timestamp int64 `json:"timestamp"`
				Value     int   `json:"value"`
			} `json:"results"`
		}
		if status, body, _ := get(t, hourly); status != http.StatusOK || json.Unmarshal(body, &series) != nil ||
			!slices.ContainsFunc(series.Results, func(p struct {
				Timestamp int64 `json:"timestamp"`
				Value     int   `json:"value"`
			}) bool {
				return p.Timestamp == last.Timestamp && p.Value >= last.TxCount
			}) {
			ready = append(ready, hourly+": "+string(body))
		}
		if len(ready) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the L1's NFT metadata and metrics were not ready:\n%s", strings.Join(ready, "\n"))
		case <-time.After(200 * time.Millisecond):
		}
	}
}
