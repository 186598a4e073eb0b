package tests

import (
	"strconv"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/testing/contracts"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// sdkEVMFacts is what the EVM scenarios did (tests/sdk/evm.test.mjs
// compares the SDK's answers with it): the contracts' scenario's record
// and the node's balances.
type sdkEVMFacts struct {
	ChainID      string `json:"chainId"`      // the EVM chain id, decimal
	BlockchainID string `json:"blockchainId"` // the C-chain's id, cb58
	Deployer     string `json:"deployer"`
	Alice        string `json:"alice"`
	Bob          string `json:"bob"`
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
	tx := func(step string) sdkEVMTx {
		rc := s.Receipts[step]
		return sdkEVMTx{Hash: rc.TxHash.Hex(), BlockNumber: rc.BlockNumber.String(), BlockHash: rc.BlockHash.Hex(),
			GasUsed: strconv.FormatUint(rc.GasUsed, 10)}
	}
	dec := int(s.Token20.Decimals)
	f := &sdkEVMFacts{
		ChainID: strconv.FormatUint(n.EVMChainID, 10), BlockchainID: n.CChainID.String(),
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
			BlockHash: r.blocks[tr.Block].Hash.Hex()})
	}
	addrs := []common.Address{s.Deployer, s.Alice, s.Bob, s.ChildCreate, s.ChildCreate2, r.code.Recipient}
	bals := r.nodeBalances(t, n, addrs)
	for _, a := range addrs {
		for h := s.First - 1; h <= r.head; h++ {
			f.Balances = append(f.Balances, sdkEVMBalance{Address: a.Hex(), BlockNumber: strconv.FormatUint(h, 10), Balance: bals[a][h]})
		}
	}
	return f
}
