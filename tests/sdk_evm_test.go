package tests

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

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
// says.
func TestSDKL1(t *testing.T) {
	installSDK(t)
	r := l1Scenarios(t)
	l, s := r.l, r.nfts
	var facts sdkFacts
	facts.Network = "testnet"
	addrs := []common.Address{s.Deployer, s.Alice, s.Bob, s.ChildCreate, s.ChildCreate2, r.sc.Alice, r.sc.Bob}
	facts.EVM = newSDKEVMFacts(s, l.EVMChainID, l.BlockchainID.String(), "NATIVE", r.blocks, r.balances, addrs, r.first-1, r.head)
	factsFile := writeFacts(t, facts)
	dsn := dbtest.SQLite(t)
	base := startService(t, l.URL, dsn, "--genesis-file", l.GenesisFile, "--network-alias", "testnet")
	waitEVMIndexed(t, dsn, l.EVMChainID, r.head)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	runSDK(t, ctx, base, factsFile, "evm.test.mjs")
}
