package contracts

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// The standards of Transfer.Standard.
const (
	ERC20   = "ERC-20"
	ERC721  = "ERC-721"
	ERC1155 = "ERC-1155"
)

// Transfer is one token transfer the scenario made, as the contract logs
// it (a mint is from the zero address).
type Transfer struct {
	Step     string
	Standard string
	Contract common.Address
	// Operator is the ERC-1155 operator (the sender of the tx).
	Operator, From, To common.Address
	// TokenID is nil for ERC-20.
	TokenID *big.Int
	Value   *big.Int
	Tx      common.Hash
	Block   uint64
}

// Token is a deployed token contract and what it was deployed with.
type Token struct {
	Address      common.Address
	Name, Symbol string
	Decimals     uint8 // ERC-20 only
	DeployTx     common.Hash
	DeployBlock  uint64
	URIs         map[int64]string // ERC-721 token URIs and ERC-1155 own URIs, as last set
	Template     string           // ERC-1155 uri template
}

// Scenario is what Run did on the C-chain.
type Scenario struct {
	// Deployer is the local key's address, which sent every tx.
	Deployer common.Address
	// Alice and Bob only receive (tokens and value); they are new to each
	// run.
	Alice, Bob                 common.Address
	Token20, NFT721, Multi1155 Token
	// Factory deployed ChildCreate with CREATE and ChildCreate2 with
	// CREATE2 (Salt), each endowed with ChildValue.
	Factory, ChildCreate, ChildCreate2 common.Address
	Salt                               common.Hash
	ChildValue                         *big.Int
	// Steps are the steps in the order they were done, and Receipts their
	// receipts by step name.
	Steps    []string
	Receipts map[string]*types.Receipt
	// Transfers are the token transfers, in the order they were made.
	Transfers []Transfer
	// First and Last are the blocks of the first and the last tx.
	First, Last uint64
}

// Tx is the hash of the step's tx.
func (s *Scenario) Tx(step string) common.Hash { return s.Receipts[step].TxHash }

// Touched are the addresses whose native balance the scenario changed or
// created: the deployer, Alice and Bob, the factory and its children, and
// the token contracts (which hold none).
func (s *Scenario) Touched() []common.Address {
	return []common.Address{s.Deployer, s.Alice, s.Bob, s.Factory, s.ChildCreate, s.ChildCreate2,
		s.Token20.Address, s.NFT721.Address, s.Multi1155.Address}
}

// Run deploys the test contracts from the local key and uses them, one tx
// (and block) per step:
//   - TestToken20: deploy, mint to the deployer, transfer to Alice,
//     approve the deployer itself and transferFrom to Bob;
//   - TestNFT721: deploy, mint tokens 1 and 2 (with URIs) to the deployer,
//     transferFrom token 1 to Alice, safeTransferFrom token 2 to Bob,
//     setTokenURI of token 1 (ERC-4906 MetadataUpdate) and refreshMetadata
//     of both (BatchMetadataUpdate);
//   - TestMulti1155: deploy, mint 100 of id 1 and 50 of id 2 to the
//     deployer, safeTransferFrom 10 of id 1 to Alice,
//     safeBatchTransferFrom 5 of id 1 and 7 of id 2 to Bob, and setURI of
//     id 2 (URI);
//   - TestFactory: deploy, create a child with CREATE and one with CREATE2,
//     each endowed with value (internal value transfers into new
//     contracts), forward value to Alice and Bob (internal calls with
//     value), and have the CREATE child pay Alice;
//   - a plain value transfer to Alice.
func Run(ctx context.Context, n *testnet.Network) (*Scenario, error) {
	me := n.EthAddr
	s := &Scenario{Deployer: me, Receipts: map[string]*types.Receipt{}, ChildValue: big.NewInt(1e16),
		Salt: crypto.Keccak256Hash([]byte("avaindex test salt"))}
	send := func(step string, to *common.Address, value *big.Int, input []byte) (*types.Receipt, error) {
		r, err := n.SendEVMTx(ctx, to, value, input, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", step, err)
		}
		s.Steps = append(s.Steps, step)
		s.Receipts[step] = r
		if s.First == 0 {
			s.First = r.BlockNumber.Uint64()
		}
		s.Last = r.BlockNumber.Uint64()
		return r, nil
	}
	deploy := func(step string, t *Token, code []byte) error {
		r, err := send(step, nil, nil, code)
		if err != nil {
			return err
		}
		t.Address, t.DeployTx, t.DeployBlock = r.ContractAddress, r.TxHash, r.BlockNumber.Uint64()
		return nil
	}
	call := func(step string, to common.Address, input []byte, transfers ...Transfer) error {
		r, err := send(step, &to, nil, input)
		if err != nil {
			return err
		}
		for _, tr := range transfers {
			tr.Step, tr.Contract, tr.Operator, tr.Tx, tr.Block = step, to, me, r.TxHash, r.BlockNumber.Uint64()
			s.Transfers = append(s.Transfers, tr)
		}
		return nil
	}
	b := func(v int64) *big.Int { return big.NewInt(v) }

	// ERC-20.
	s.Token20 = Token{Name: "Avaindex Test Token", Symbol: "AIT", Decimals: 18}
	if err := deploy("deploy erc20", &s.Token20, Token20.Deploy(s.Token20.Name, s.Token20.Symbol, s.Token20.Decimals)); err != nil {
		return nil, err
	}
	// Alice and Bob are new to this run: named after its token.
	s.Alice = common.BytesToAddress(crypto.Keccak256([]byte("alice"), s.Token20.Address[:]))
	s.Bob = common.BytesToAddress(crypto.Keccak256([]byte("bob"), s.Token20.Address[:]))
	t20 := s.Token20.Address
	erc20 := func(from, to common.Address, v int64) Transfer {
		return Transfer{Standard: ERC20, From: from, To: to, Value: b(v)}
	}
	steps := []struct {
		step string
		in   []byte
		tr   []Transfer
	}{
		{"mint erc20", MintERC20(me, b(1_000_000)), []Transfer{erc20(common.Address{}, me, 1_000_000)}},
		{"transfer erc20", TransferERC20(s.Alice, b(1000)), []Transfer{erc20(me, s.Alice, 1000)}},
		{"approve erc20", ApproveERC20(me, b(500)), nil},
		{"transferFrom erc20", TransferFromERC20(me, s.Bob, b(250)), []Transfer{erc20(me, s.Bob, 250)}},
	}
	for _, st := range steps {
		if err := call(st.step, t20, st.in, st.tr...); err != nil {
			return nil, err
		}
	}

	// ERC-721.
	s.NFT721 = Token{Name: "Avaindex Test NFT", Symbol: "AIN", URIs: map[int64]string{}}
	if err := deploy("deploy erc721", &s.NFT721, NFT721.Deploy(s.NFT721.Name, s.NFT721.Symbol)); err != nil {
		return nil, err
	}
	erc721 := func(from, to common.Address, id int64) Transfer {
		return Transfer{Standard: ERC721, From: from, To: to, TokenID: b(id), Value: b(1)}
	}
	// The metadata are data: URIs, which resolve without a network (devnet's
	// demo runs offline); token 1's URI set later is another document.
	uri := func(id int64, version int) string {
		return metadataURI(map[string]any{"name": fmt.Sprintf("%s #%d", s.NFT721.Name, id),
			"description": fmt.Sprintf("token %d of avaindex's test ERC-721, metadata version %d", id, version),
			"attributes":  []map[string]any{{"trait_type": "version", "value": version}}})
	}
	s.NFT721.URIs[1], s.NFT721.URIs[2] = uri(1, 2), uri(2, 1)
	steps = []struct {
		step string
		in   []byte
		tr   []Transfer
	}{
		{"mint erc721 1", MintERC721(me, 1, uri(1, 1)), []Transfer{erc721(common.Address{}, me, 1)}},
		{"mint erc721 2", MintERC721(me, 2, uri(2, 1)), []Transfer{erc721(common.Address{}, me, 2)}},
		{"transferFrom erc721", TransferFromERC721(me, s.Alice, 1), []Transfer{erc721(me, s.Alice, 1)}},
		{"safeTransferFrom erc721", SafeTransferFromERC721(me, s.Bob, 2), []Transfer{erc721(me, s.Bob, 2)}},
		{"setTokenURI erc721", SetTokenURI(1, s.NFT721.URIs[1]), nil},
		{"refreshMetadata erc721", RefreshMetadata(1, 2), nil},
	}
	for _, st := range steps {
		if err := call(st.step, s.NFT721.Address, st.in, st.tr...); err != nil {
			return nil, err
		}
	}

	// ERC-1155.
	// The {id} template is a data: URI too, its JSON escaped around {id},
	// which the contract leaves for clients to substitute.
	s.Multi1155 = Token{Name: "Avaindex Test Multi", Symbol: "AIM",
		Template: "data:application/json," + url.PathEscape(`{"name":"Avaindex Test Multi `) + "{id}" + url.PathEscape(`","description":"a token of avaindex's test ERC-1155, by its uri template"}`),
		URIs:     map[int64]string{2: metadataURI(map[string]any{"name": "Avaindex Test Multi #2", "description": "token 2 of avaindex's test ERC-1155, by its own uri"})}}
	if err := deploy("deploy erc1155", &s.Multi1155, Multi1155.Deploy(s.Multi1155.Name, s.Multi1155.Symbol, s.Multi1155.Template)); err != nil {
		return nil, err
	}
	erc1155 := func(from, to common.Address, id, v int64) Transfer {
		return Transfer{Standard: ERC1155, From: from, To: to, TokenID: b(id), Value: b(v)}
	}
	steps = []struct {
		step string
		in   []byte
		tr   []Transfer
	}{
		{"mint erc1155 1", MintERC1155(me, 1, 100), []Transfer{erc1155(common.Address{}, me, 1, 100)}},
		{"mint erc1155 2", MintERC1155(me, 2, 50), []Transfer{erc1155(common.Address{}, me, 2, 50)}},
		{"safeTransferFrom erc1155", SafeTransferFromERC1155(me, s.Alice, 1, 10), []Transfer{erc1155(me, s.Alice, 1, 10)}},
		{"safeBatchTransferFrom erc1155", SafeBatchTransferFromERC1155(me, s.Bob, []int64{1, 2}, []int64{5, 7}),
			[]Transfer{erc1155(me, s.Bob, 1, 5), erc1155(me, s.Bob, 2, 7)}},
		{"setURI erc1155", SetURI(2, s.Multi1155.URIs[2]), nil},
	}
	for _, st := range steps {
		if err := call(st.step, s.Multi1155.Address, st.in, st.tr...); err != nil {
			return nil, err
		}
	}

	// The factory: children by CREATE and CREATE2, value forwarded.
	r, err := send("deploy factory", nil, nil, Factory.Deploy())
	if err != nil {
		return nil, err
	}
	s.Factory = r.ContractAddress
	// A contract's first CREATE uses its nonce 1 (EIP-161).
	s.ChildCreate = crypto.CreateAddress(s.Factory, 1)
	s.ChildCreate2 = ChildCreate2Address(s.Factory, s.Salt, 2)
	for _, c := range []struct {
		step  string
		in    []byte
		child common.Address
	}{{"factory create", FactoryCreate(1), s.ChildCreate}, {"factory create2", FactoryCreate2(s.Salt, 2), s.ChildCreate2}} {
		r, err := send(c.step, &s.Factory, s.ChildValue, c.in)
		if err != nil {
			return nil, err
		}
		// The factory's ChildCreated log names the child: where it was
		// computed to be.
		created := Factory.Topic("ChildCreated")
		if len(r.Logs) != 1 || len(r.Logs[0].Topics) < 2 || r.Logs[0].Topics[0] != created ||
			common.BytesToAddress(r.Logs[0].Topics[1][:]) != c.child {
			return nil, fmt.Errorf("%s: the factory did not log the child %s: %+v", c.step, c.child, r.Logs)
		}
	}
	if _, err := send("factory forward", &s.Factory, big.NewInt(2e15), FactoryForward(s.Alice, s.Bob)); err != nil {
		return nil, err
	}
	if _, err := send("child pay", &s.ChildCreate, nil, ChildPay(s.Alice, big.NewInt(3e15))); err != nil {
		return nil, err
	}
	if _, err := send("value", &s.Alice, big.NewInt(1e17), nil); err != nil {
		return nil, err
	}
	return s, nil
}

// metadataURI is the data: URI of an NFT metadata document.
func metadataURI(doc map[string]any) string {
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err) // maps of strings and numbers
	}
	return "data:application/json;base64," + base64.StdEncoding.EncodeToString(b)
}
