package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

const testEVMChain = 43112

func evmAddr(name string) common.Address {
	return common.BytesToAddress(crypto.Keccak256([]byte(name)))
}

func evmHash(parts ...any) common.Hash { return crypto.Keccak256Hash(fmt.Append(nil, parts...)) }

var (
	alice, bob, carol = evmAddr("alice"), evmAddr("bob"), evmAddr("carol")
	token20, nft721   = evmAddr("erc20"), evmAddr("erc721")
	multi1155         = evmAddr("erc1155")
	factory           = evmAddr("factory")
)

// makeEVMBlocks returns blocks 0..n-1 of a chain named by salt. Block 0
// funds alice with 1000; block h > 0 has h%3+1 txs from alice to token20,
// each with an internal call and an ERC-20 transfer alice -> bob of
// 10h+i, and alice's balance becomes 1000-h; odd blocks add an ERC-721
// transfer bob -> carol of token h, blocks h%4 == 2 an ERC-1155 batch
// alice -> carol of two ids. Block 1 deploys token20 (alice), block 2
// deploys nft721 through factory and carries a Teleporter message; block 3
// sees multi1155, never deployed. Blocks 5 and 6 credit carol 7 and 3 by
// deltas. Blocks are traced unless untraced holds their number.
func makeEVMBlocks(salt string, n uint64, untraced ...uint64) []*internal.EVMBlockData {
	var out []*internal.EVMBlockData
	parent := common.Hash{}
	for h := range n {
		ts := time.Unix(1_700_000_000+int64(h)*2, 0).UTC()
		b := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: h, Hash: evmHash(salt, "block", h), ParentHash: parent,
			Timestamp: ts, Miner: evmAddr("coinbase"), GasLimit: 8_000_000, GasUsed: 21_000 * h, BaseFee: big.NewInt(25e9),
			Size: 500 + h}, Traced: true}
		for _, u := range untraced {
			if u == h {
				b.Traced = false
			}
		}
		parent = b.Hash
		if h == 0 {
			b.Balances = []internal.EVMBalanceChange{{Address: alice, Balance: big.NewInt(1000)}}
			out = append(out, b)
			continue
		}
		logIndex := uint32(0)
		for i := range h%3 + 1 {
			to := token20
			tx := internal.EVMTx{Hash: evmHash(salt, "tx", h, i), BlockNumber: h, BlockHash: b.Hash, Timestamp: ts,
				Index: uint32(i), From: alice, To: &to, Value: big.NewInt(int64(i)), Nonce: h*10 + i, Type: 2,
				GasLimit: 100_000, GasPrice: big.NewInt(26e9), MaxFeePerGas: big.NewInt(50e9),
				MaxPriorityFeePerGas: big.NewInt(1e9), GasUsed: 50_000, Status: 1, Input: []byte{0xa9, 0x05, byte(i)}}
			b.Txs = append(b.Txs, tx)
			b.InternalTxs = append(b.InternalTxs, internal.EVMInternalTx{TxHash: tx.Hash, BlockNumber: h, Index: 0,
				From: token20, To: bob, Value: big.NewInt(int64(h)), CallType: "CALL", Gas: 30_000, GasUsed: 700})
			b.Logs = append(b.Logs, internal.EVMLog{TxIndex: uint32(i), Index: logIndex, Address: token20,
				Topics: []common.Hash{evmHash("Transfer"), common.BytesToHash(alice[:]), common.BytesToHash(bob[:])},
				Data:   common.BigToHash(big.NewInt(int64(10*h + i))).Bytes()})
			b.Transfers = append(b.Transfers, internal.EVMTransfer{BlockNumber: h, BlockHash: b.Hash, Timestamp: ts,
				TxHash: tx.Hash, LogIndex: logIndex, Token: token20, Type: internal.ERC20, From: alice, To: bob,
				Value: big.NewInt(int64(10*h + i))})
			logIndex++
		}
		tx0 := b.Txs[0]
		if h%2 == 1 {
			b.Transfers = append(b.Transfers, internal.EVMTransfer{BlockNumber: h, BlockHash: b.Hash, Timestamp: ts,
				TxHash: tx0.Hash, LogIndex: logIndex, Token: nft721, Type: internal.ERC721, From: bob, To: carol,
				Value: big.NewInt(1), TokenID: big.NewInt(int64(h))})
			logIndex++
		}
		if h%4 == 2 {
			for k := range 2 {
				b.Transfers = append(b.Transfers, internal.EVMTransfer{BlockNumber: h, BlockHash: b.Hash, Timestamp: ts,
					TxHash: tx0.Hash, LogIndex: logIndex, BatchIndex: uint32(k), Token: multi1155, Type: internal.ERC1155,
					Operator: alice, From: alice, To: carol, Value: big.NewInt(int64(k + 5)), TokenID: big.NewInt(int64(100 + k))})
			}
			logIndex++
		}
		switch h {
		case 1:
			c := tx0.Hash
			b.Contracts = append(b.Contracts, internal.EVMContract{Address: token20, Deployer: alice, TxHash: c,
				BlockNumber: h, Timestamp: ts, Index: 0, CreateType: "CREATE", Type: internal.ERC20, Name: "Token",
				Symbol: "TOK", Decimals: new(uint8)})
			*b.Contracts[0].Decimals = 18
		case 2:
			f := factory
			b.Contracts = append(b.Contracts, internal.EVMContract{Address: nft721, Deployer: alice, DeployerContract: &f,
				TxHash: tx0.Hash, BlockNumber: h, Timestamp: ts, Index: 1, CreateType: "CREATE2", Type: internal.ERC721,
				Name: "NFT", Symbol: "NFT"})
			// Seen in the batch that deploys it: the deployment wins.
			b.Seen = append(b.Seen, internal.EVMContract{Address: nft721, BlockNumber: h, Timestamp: ts,
				CreateType: "CREATE", Type: internal.ERCUnknown})
			b.Teleporter = append(b.Teleporter, internal.TeleporterMessage{TxHash: tx0.Hash, BlockNumber: h, LogIndex: 0,
				Direction: internal.TeleporterSource, MessageID: evmHash("message"), SourceBlockchainID: ids.ID{1},
				DestinationBlockchainID: ids.ID{2}})
		case 3:
			b.Seen = append(b.Seen, internal.EVMContract{Address: multi1155, BlockNumber: h, Timestamp: ts,
				CreateType: "CREATE", Type: internal.ERC1155, Name: "Multi"})
		}
		b.TxCount = len(b.Txs)
		b.Balances = append(b.Balances, internal.EVMBalanceChange{Address: alice, Balance: big.NewInt(1000 - int64(h))})
		switch h {
		case 5:
			b.Balances = append(b.Balances, internal.EVMBalanceChange{Address: carol, Delta: big.NewInt(7)})
		case 6:
			b.Balances = append(b.Balances, internal.EVMBalanceChange{Address: carol, Delta: big.NewInt(3)})
		}
		out = append(out, b)
	}
	return out
}

// jsonEqual compares values by their JSON, which spells amounts, pointers
// and addresses by value.
func jsonEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(g) != string(w) {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

var evmTables = []string{"evm_chains", "evm_blocks", "evm_txs", "evm_logs", "evm_internal_txs", "evm_transfers",
	"evm_address_transfers", "evm_contracts", "evm_deployments", "evm_balances", "evm_teleporter_messages"}

func evmCounts(t *testing.T, s *sqlStore) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range evmTables {
		var n int
		if err := s.db.QueryRow(context.Background(), "SELECT COUNT(*) FROM "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// allTransfers returns the transfers of bs that keep, newest first.
func allTransfers(bs []*internal.EVMBlockData, keep func(internal.EVMTransfer) bool) []internal.EVMTransfer {
	var out []internal.EVMTransfer
	for i := len(bs) - 1; i >= 0; i-- {
		ts := bs[i].Transfers
		for j := len(ts) - 1; j >= 0; j-- {
			if keep(ts[j]) {
				out = append(out, ts[j])
			}
		}
	}
	return out
}

// pages reads a whole list limit items at a time.
func pages(t *testing.T, limit int, page func(after *EVMTransferKey, limit int) ([]internal.EVMTransfer, error)) []internal.EVMTransfer {
	t.Helper()
	var out []internal.EVMTransfer
	var after *EVMTransferKey
	for range 1000 {
		got, err := page(after, limit)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got...)
		if len(got) < limit {
			return out
		}
		last := got[len(got)-1]
		after = &EVMTransferKey{BlockNumber: last.BlockNumber, LogIndex: last.LogIndex, BatchIndex: last.BatchIndex}
	}
	t.Fatal("the pages never end")
	return nil
}

func TestApplyEVMBlocks(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		bs := makeEVMBlocks("c", 10)
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[:6], deriveEVM); err != nil {
			t.Fatal(err)
		}
		before := evmCounts(t, s)
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[:6], deriveEVM); err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "rows after re-applying a batch", evmCounts(t, s), before)
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[4:], deriveEVM); err != nil {
			t.Fatal(err)
		}
		if n, ok, err := s.Cursor(ctx, EVMCursor(testEVMChain)); err != nil || !ok || n != 9 {
			t.Fatalf("cursor = %d, %t, %v; want 9", n, ok, err)
		}
		counts := evmCounts(t, s)
		want := map[string]int{"evm_chains": 1, "evm_blocks": 10, "evm_contracts": 3, "evm_deployments": 3,
			"evm_teleporter_messages": 1}
		for _, b := range bs {
			want["evm_txs"] += len(b.Txs)
			want["evm_logs"] += len(b.Logs)
			want["evm_internal_txs"] += len(b.InternalTxs)
			want["evm_transfers"] += len(b.Transfers)
			want["evm_address_transfers"] += 2 * len(b.Transfers)
			want["evm_balances"] += len(b.Balances)
		}
		jsonEqual(t, "rows", counts, want)

		// Another chain's block at a stored number, and a gap, are refused;
		// another EVM chain is kept apart.
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, makeEVMBlocks("other", 10)[9:], deriveEVM); err == nil {
			t.Error("a different block at a stored number was accepted")
		}
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, makeEVMBlocks("c", 13)[11:], deriveEVM); !errors.Is(err, derrors.InvalidArgument) {
			t.Errorf("a batch leaving a gap: %v, want InvalidArgument", err)
		}
		if err := s.ApplyEVMBlocks(ctx, 99, makeEVMBlocks("other", 3), deriveEVM); err != nil {
			t.Fatal(err)
		}

		head, err := s.EVMHead(ctx, testEVMChain)
		if err != nil {
			t.Fatal(err)
		}
		txs := uint64(0)
		for _, b := range bs[:10] {
			txs += uint64(len(b.Txs))
		}
		wantHead := wantBlock(bs[9], txs)
		jsonEqual(t, "head", head, &wantHead)
		if _, err := s.EVMHead(ctx, 7); !errors.Is(err, derrors.NotFound) {
			t.Errorf("head of an unknown chain: %v, want NotFound", err)
		}
		if h, err := s.EVMBlockHash(ctx, testEVMChain, 3); err != nil || h != bs[3].Hash {
			t.Errorf("EVMBlockHash(3) = %s, %v; want %s", h, err, bs[3].Hash)
		}

		// A tx with everything it did.
		b2 := bs[2]
		d, err := s.EVMTxDetails(ctx, testEVMChain, b2.Txs[0].Hash)
		if err != nil {
			t.Fatal(err)
		}
		var tr []internal.EVMTransfer
		for _, x := range b2.Transfers {
			if x.TxHash == b2.Txs[0].Hash {
				tr = append(tr, x)
			}
		}
		jsonEqual(t, "tx details", d, &internal.EVMTxDetails{Tx: b2.Txs[0], InternalTxs: b2.InternalTxs[:1],
			Transfers: tr, Teleporter: &b2.Teleporter[0]})
		d, err = s.EVMTxDetails(ctx, testEVMChain, b2.Txs[1].Hash)
		if err != nil || d.Teleporter != nil || len(d.Transfers) != 1 {
			t.Errorf("second tx: %+v, %v; want one transfer and no Teleporter message", d, err)
		}
		if _, err := s.EVMTxDetails(ctx, 99, b2.Txs[0].Hash); !errors.Is(err, derrors.NotFound) {
			t.Errorf("a tx of another chain: %v, want NotFound", err)
		}

		// Contracts: deployed, deployed over a sighting, seen only.
		for _, want := range []internal.EVMContract{bs[1].Contracts[0], bs[2].Contracts[0], bs[3].Seen[0]} {
			got, err := s.EVMContract(ctx, testEVMChain, want.Address)
			if err != nil {
				t.Fatal(err)
			}
			jsonEqual(t, "contract", got, &want)
		}
		if _, err := s.EVMContract(ctx, testEVMChain, alice); !errors.Is(err, derrors.NotFound) {
			t.Errorf("not a contract: %v, want NotFound", err)
		}
		types, err := s.EVMContractTypes(ctx, testEVMChain, []common.Address{token20, nft721, multi1155, alice})
		if err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "contract types", types, map[common.Address]internal.ERCType{token20: internal.ERC20,
			nft721: internal.ERC721, multi1155: internal.ERC1155})
		for _, c := range []struct {
			deployer common.Address
			want     []internal.EVMContract
		}{
			{alice, []internal.EVMContract{bs[2].Contracts[0], bs[1].Contracts[0]}},
			{factory, []internal.EVMContract{bs[2].Contracts[0]}},
			{bob, nil},
		} {
			var got []internal.EVMContract
			var after *EVMContractKey
			for {
				page, err := s.EVMContractsByDeployer(ctx, testEVMChain, c.deployer, after, 1)
				if err != nil {
					t.Fatal(err)
				}
				if len(page) == 0 {
					break
				}
				got = append(got, page...)
				after = &EVMContractKey{BlockNumber: page[0].BlockNumber, Index: page[0].Index}
			}
			jsonEqual(t, "deployments of "+c.deployer.Hex(), got, c.want)
		}

		// Transfer lists, page by page, in ranges.
		from, to := uint64(3), uint64(8)
		for _, c := range []struct {
			name string
			r    BlockRange
			keep func(b uint64) bool
		}{
			{"all", BlockRange{}, func(uint64) bool { return true }},
			{"from 3", BlockRange{From: &from}, func(b uint64) bool { return b >= 3 }},
			{"to 8", BlockRange{To: &to}, func(b uint64) bool { return b < 8 }},
			{"3 to 8", BlockRange{From: &from, To: &to}, func(b uint64) bool { return b >= 3 && b < 8 }},
		} {
			for _, l := range []struct {
				addr common.Address
				typ  internal.ERCType
			}{{bob, internal.ERC20}, {bob, internal.ERC721}, {carol, internal.ERC1155}, {alice, internal.ERC1155}, {carol, internal.ERC20}} {
				want := allTransfers(bs, func(x internal.EVMTransfer) bool {
					return x.Type == l.typ && (x.From == l.addr || x.To == l.addr) && c.keep(x.BlockNumber)
				})
				for _, limit := range []int{1, 2, 100} {
					got := pages(t, limit, func(after *EVMTransferKey, limit int) ([]internal.EVMTransfer, error) {
						return s.EVMAddressTransfers(ctx, testEVMChain, l.addr, l.typ, c.r, after, limit)
					})
					jsonEqual(t, fmt.Sprintf("%s %s transfers of %s by %d", c.name, l.typ, l.addr, limit), got, want)
				}
			}
			for _, token := range []common.Address{token20, nft721, multi1155} {
				want := allTransfers(bs, func(x internal.EVMTransfer) bool { return x.Token == token && c.keep(x.BlockNumber) })
				got := pages(t, 2, func(after *EVMTransferKey, limit int) ([]internal.EVMTransfer, error) {
					return s.EVMTokenTransfers(ctx, testEVMChain, token, c.r, after, limit)
				})
				jsonEqual(t, fmt.Sprintf("%s transfers of token %s", c.name, token), got, want)
			}
		}
		if _, err := s.EVMAddressTransfers(ctx, testEVMChain, bob, internal.ERCUnknown, BlockRange{}, nil, 10); !errors.Is(err, derrors.InvalidArgument) {
			t.Errorf("transfers of an unknown type: %v, want InvalidArgument", err)
		}

		// Balances at any block, deltas applied to the balance before.
		for _, c := range []struct {
			addr   common.Address
			number uint64
			want   int64
		}{{alice, 0, 1000}, {alice, 4, 996}, {alice, 100, 991}, {carol, 4, 0}, {carol, 5, 7}, {carol, 6, 10}, {carol, 9, 10}, {bob, 9, 0}} {
			got, ok, err := s.EVMNativeBalance(ctx, testEVMChain, c.addr, c.number)
			if err != nil || !ok || got.Cmp(big.NewInt(c.want)) != 0 {
				t.Errorf("balance of %s at %d = %v, %t, %v; want %d", c.addr, c.number, got, ok, err, c.want)
			}
		}
		if _, ok, err := s.EVMNativeBalance(ctx, 7, alice, 1); err != nil || ok {
			t.Errorf("balances of an unknown chain: ok %t, %v; want not indexed", ok, err)
		}
	})
}

// TestEVMBalancesNotExact checks that a chain whose blocks are not all
// traced, or whose deltas go negative, says its balances are not indexed.
func TestEVMBalancesNotExact(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		if err := s.ApplyEVMBlocks(ctx, 1, makeEVMBlocks("a", 5, 3), deriveEVM); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.EVMNativeBalance(ctx, 1, alice, 4); err != nil || ok {
			t.Errorf("balances with an untraced block: ok %t, %v; want not indexed", ok, err)
		}
		bs := makeEVMBlocks("b", 3)
		if err := s.ApplyEVMBlocks(ctx, 2, bs, deriveEVM); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.EVMNativeBalance(ctx, 2, alice, 2); err != nil || !ok {
			t.Fatalf("balances of a traced chain: ok %t, %v", ok, err)
		}
		next := makeEVMBlocks("b", 4)[3]
		next.Balances = append(next.Balances, internal.EVMBalanceChange{Address: bob, Delta: big.NewInt(-1)})
		if err := s.ApplyEVMBlocks(ctx, 2, []*internal.EVMBlockData{next}, deriveEVM); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.EVMNativeBalance(ctx, 2, alice, 2); err != nil || ok {
			t.Errorf("balances after a negative delta: ok %t, %v; want not indexed", ok, err)
		}
	})
}
