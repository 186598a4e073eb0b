package store

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

func pstateBase(memo string) txs.BaseTx {
	return txs.BaseTx{BaseTx: avax.BaseTx{
		NetworkID:    constants.UnitTestID,
		BlockchainID: constants.PlatformChainID,
		Memo:         []byte(memo),
	}}
}

func pstateOwner(threshold uint32, addrs ...ids.ShortID) *secp256k1fx.OutputOwners {
	return &secp256k1fx.OutputOwners{Threshold: threshold, Locktime: 7, Addrs: addrs}
}

// pstateTx signs nothing: parsing does not check credentials.
func pstateTx(t *testing.T, u txs.UnsignedTx) (*txs.Tx, ids.ID) {
	t.Helper()
	tx, err := txs.NewSigned(u, txs.Codec, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tx, tx.ID()
}

func TestPStateSubnetsAndChains(t *testing.T) {
	addr1, addr2, addr3 := ids.ShortID{1}, ids.ShortID{2}, ids.ShortID{3}
	createA, subnetA := pstateTx(t, &txs.CreateSubnetTx{BaseTx: pstateBase("a"), Owner: pstateOwner(1, addr1)})
	createB, subnetB := pstateTx(t, &txs.CreateSubnetTx{BaseTx: pstateBase("b"), Owner: pstateOwner(2, addr1, addr2)})
	chain := func(subnet ids.ID, name string) (*txs.Tx, ids.ID) {
		return pstateTx(t, &txs.CreateChainTx{
			BaseTx: pstateBase(name), SubnetID: subnet, ChainName: name, VMID: ids.ID{9},
			FxIDs: []ids.ID{{5}, {6}}, GenesisData: []byte("genesis of " + name), SubnetAuth: &secp256k1fx.Input{},
		})
	}
	a1, a1ID := chain(subnetA, "a1")
	b1, b1ID := chain(subnetB, "b1")
	a2, a2ID := chain(subnetA, "a2")
	transferA, _ := pstateTx(t, &txs.TransferSubnetOwnershipTx{BaseTx: pstateBase("ta"), Subnet: subnetA,
		SubnetAuth: &secp256k1fx.Input{}, Owner: pstateOwner(1, addr3)})
	transferB, _ := pstateTx(t, &txs.TransferSubnetOwnershipTx{BaseTx: pstateBase("tb"), Subnet: subnetB,
		SubnetAuth: &secp256k1fx.Input{}, Owner: pstateOwner(1, addr2)})
	convert := &txs.ConvertSubnetToL1Tx{BaseTx: pstateBase("c"), Subnet: subnetA, ChainID: a1ID, Address: []byte{0xde, 0xad},
		Validators: []*txs.ConvertSubnetToL1Validator{{NodeID: make([]byte, 20), Weight: 3,
			Signer: signer.ProofOfPossession{PublicKey: [48]byte{1}}}},
		SubnetAuth: &secp256k1fx.Input{}}
	convertTx, convertID := pstateTx(t, convert)
	conversionID, err := pchain.ConversionID(convert)
	if err != nil {
		t.Fatal(err)
	}

	specs := makeSpecs(t, "pstate", 6)
	specs[1].txs = []*txs.Tx{createA, createB}
	specs[2].txs = []*txs.Tx{a1, b1}
	specs[3].txs = []*txs.Tx{transferA, a2}
	specs[4].txs = []*txs.Tx{convertTx, transferB}
	specs[5].txs = nil
	blocks := pChain(t, 0, testID("pstate"), specs...)
	at := func(h uint64, i int) pchain.Pos {
		return pchain.Pos{Height: h, Index: i, Time: blocks[h].Timestamp}
	}
	wantSubnets := []*pchain.Subnet{
		{ID: subnetA, Created: at(1, 0), Owner: pchain.SubnetOwner{Threshold: 1, Locktime: 7, Addresses: []ids.ShortID{addr3}},
			OwnerPos: pchain.Pos{Height: 3}, Conversion: &pchain.SubnetConversion{ID: conversionID, ManagerChainID: a1ID,
				ManagerAddress: []byte{0xde, 0xad}, TxID: convertID, At: at(4, 0)}},
		{ID: subnetB, Created: at(1, 1), Owner: pchain.SubnetOwner{Threshold: 1, Locktime: 7, Addresses: []ids.ShortID{addr2}},
			OwnerPos: pchain.Pos{Height: 4, Index: 1}},
	}
	wantChain := func(id, subnet ids.ID, name string, p pchain.Pos) *pchain.Blockchain {
		return &pchain.Blockchain{ID: id, Name: name, SubnetID: subnet, VMID: ids.ID{9}, FxIDs: []ids.ID{{5}, {6}},
			Genesis: []byte("genesis of " + name), Created: p}
	}
	wantChains := []*pchain.Blockchain{
		wantChain(a1ID, subnetA, "a1", at(2, 0)),
		wantChain(b1ID, subnetB, "b1", at(2, 1)),
		wantChain(a2ID, subnetA, "a2", at(3, 1)),
	}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		check := func(when string) {
			t.Helper()
			subnets, err := s.Subnets(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(subnets, wantSubnets) {
				t.Errorf("%s: Subnets:\n got  %+v\n want %+v", when, subnets, wantSubnets)
			}
			chains, err := s.Blockchains(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(chains, wantChains) {
				t.Errorf("%s: Blockchains:\n got  %+v\n want %+v", when, chains, wantChains)
			}
			for _, w := range wantSubnets {
				if got, err := s.Subnet(ctx, w.ID); err != nil || !reflect.DeepEqual(got, w) {
					t.Errorf("%s: Subnet(%s) = %+v, %v", when, w.ID, got, err)
				}
			}
			for _, w := range wantChains {
				if got, err := s.Blockchain(ctx, w.ID); err != nil || !reflect.DeepEqual(got, w) {
					t.Errorf("%s: Blockchain(%s) = %+v, %v", when, w.ID, got, err)
				}
			}
		}
		mustApply(t, s, blocks[:3])
		mustApply(t, s, blocks[3:])
		check("applied")
		// Re-applying either batch, the older after the newer included,
		// changes nothing: the older owner does not come back.
		mustApply(t, s, blocks[:3])
		mustApply(t, s, blocks[3:])
		mustApply(t, s, blocks)
		check("re-applied")

		if _, err := s.Subnet(ctx, ids.GenerateTestID()); !errors.Is(err, derrors.NotFound) {
			t.Errorf("Subnet(unknown): %v, want NotFound", err)
		}
		if _, err := s.Blockchain(ctx, subnetA); !errors.Is(err, derrors.NotFound) {
			t.Errorf("Blockchain(a subnet id): %v, want NotFound", err)
		}
	})
}

func TestPStateNoChanges(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		mustApply(t, s, makeBlocks(t, "plain", 0, 8))
		subnets, err := s.Subnets(context.Background())
		if err != nil || len(subnets) != 0 {
			t.Errorf("Subnets = %v, %v; want none", subnets, err)
		}
		chains, err := s.Blockchains(context.Background())
		if err != nil || len(chains) != 0 {
			t.Errorf("Blockchains = %v, %v; want none", chains, err)
		}
	})
}

func TestPStateSupply(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		primaryID := constants.PrimaryNetworkID
		if _, err := s.Supply(ctx, primaryID); !errors.Is(err, derrors.NotFound) {
			t.Fatalf("Supply before any: %v, want NotFound", err)
		}
		if err := s.PutSupply(ctx, primaryID, 0, 1); !errors.Is(err, derrors.InvalidArgument) {
			t.Fatalf("PutSupply with nothing indexed: %v, want InvalidArgument", err)
		}
		mustApply(t, s, makeBlocks(t, "supply", 0, 5))
		if err := s.PutSupply(ctx, primaryID, 5, 1); !errors.Is(err, derrors.InvalidArgument) {
			t.Fatalf("PutSupply above the cursor: %v, want InvalidArgument", err)
		}
		const big = uint64(1) << 63 // above BIGINT
		for _, p := range []struct{ h, supply uint64 }{{3, 100}, {4, big + 5}, {2, 7}, {4, 9}} {
			if err := s.PutSupply(ctx, primaryID, p.h, p.supply); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Supply(ctx, primaryID)
		if err != nil || got.Supply != big+5 || got.Height != 4 || got.Replayed {
			t.Errorf("Supply = %+v, %v; want %d at 4, observed", got, err, big+5)
		}
		if _, err := s.Supply(ctx, ids.GenerateTestID()); !errors.Is(err, derrors.NotFound) {
			t.Errorf("Supply(other subnet): %v, want NotFound", err)
		}
	})
}
