package tests

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/avm"
	xblock "github.com/ava-labs/avalanchego/vms/avm/block"
	"github.com/ava-labs/avalanchego/vms/avm/fxs"
	xtxs "github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/nftfx"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	pblock "github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/stakeable"
	ptxs "github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"
	"github.com/ava-labs/avalanchego/vms/propertyfx"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/derive"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestAvaxSupplyMatchesNode checks getAvaxSupply on both stores against
// the node: the supply against platform.getCurrentSupply, the stake
// against getTotalStake, the genesis supply against the network's genesis
// config, and the burned amounts worked out here from every block the node
// serves, decoded with avalanchego's own parsers: on the P- and X-chains
// each tx's AVAX inputs less its outputs (staked, exported and moved into
// L1 validator balances included), each X-chain fee checked against
// avm.getTxFee; on the C-chain every receipt's gas used times its
// effective gas price (at least the block's base fee) plus the atomic txs'
// inputs less outputs; the L1 validators' fees as what was deposited less
// the balances platform.getL1Validator answers.
func TestAvaxSupplyMatchesNode(t *testing.T) {
	n, issued := issuedNetwork(t)
	issueUTXOExtras(t, n, issued) // a P-chain output locked for an hour
	doc := openapitest.Default(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--network-alias", "testnet")
		var problem string
		for attempt := 0; attempt < 5; attempt++ {
			waitAllIndexed(t, n, dsn)
			want := supplyFromNode(t, n)
			waitAllIndexed(t, n, dsn)
			ec, err := n.EthClient(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			tip, err := ec.BlockNumber(context.Background())
			ec.Close()
			if err != nil {
				t.Fatal(err)
			}
			waitEVMIndexed(t, dsn, n.EVMChainID, tip)
			var got api.AvaxSupplyResponse
			if st := getJSON(t, doc, "/v1/avax/supply", strings.TrimSuffix(base, "/")+"/v1/avax/supply", &got); st != 200 {
				t.Fatalf("getAvaxSupply: %d", st)
			}
			if problem = ""; jsonOf(t, got) != jsonOf(t, want) {
				problem = fmt.Sprintf("getAvaxSupply =\n%+v\nfrom the node\n%+v", got, want)
				time.Sleep(time.Second)
				continue
			}
			if want.TotalPBurned == "0" || want.TotalXBurned == "0" || want.TotalCBurned == "0" || want.L1ValidatorFees == "0" || want.TotalStaked == "0" || want.TotalLocked == "0" {
				t.Errorf("nothing to compare: %+v", want)
			}
			t.Logf("getAvaxSupply = %+v", got)
			break
		}
		if problem != "" {
			t.Error(problem)
		}
		if st, body, _ := get(t, base+"/v1/avax/supply?foo=1"); st != 400 || !strings.Contains(string(body), "foo") {
			t.Errorf("getAvaxSupply?foo=1 = %d %s; want 400 naming foo", st, body)
		}
	})
}

// supplyFromNode works the supply out from the node alone, at its tips.
func supplyFromNode(t *testing.T, n *testnet.Network) api.AvaxSupplyResponse {
	t.Helper()
	s, _ := supplyAndRefunds(t, n)
	return s
}

// supplyAndRefunds is supplyFromNode, with the L1 refunds it counted.
func supplyAndRefunds(t *testing.T, n *testnet.Network) (api.AvaxSupplyResponse, *big.Int) {
	t.Helper()
	ctx := context.Background()
	pc := platformvm.NewClient(n.URL)
	xc := avm.NewClient(n.URL, "X")
	avaxID := n.AVAXAssetID

	// P-chain.
	pTip, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	locked := lockedOutputs{}
	pBurned, deposits := new(big.Int), new(big.Int)
	var (
		validations []ids.ID
		owners      []ids.ShortID
	)
	refundTxs, spentRefunds := map[ids.ID]uint32{}, new(big.Int)
	var tipTime time.Time
	for h := uint64(1); h <= pTip; h++ {
		raw, err := pc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := pblock.Parse(pblock.Codec, raw)
		if err != nil {
			t.Fatal(err)
		}
		if b, ok := blk.(pblock.BanffBlock); ok && h == pTip {
			tipTime = b.Timestamp()
		}
		for _, tx := range blk.Txs() {
			l1 := uint64(0)
			switch u := tx.Unsigned.(type) {
			case *ptxs.ConvertSubnetToL1Tx:
				for i, v := range u.Validators {
					l1 += v.Balance
					validations = append(validations, u.Subnet.Append(uint32(i)))
					owners = append(owners, v.RemainingBalanceOwner.Addresses...)
				}
			case *ptxs.RegisterL1ValidatorTx:
				l1 += u.Balance
				reg := registeredValidation(t, u.Message)
				validations = append(validations, reg.ValidationID())
				owners = append(owners, reg.RemainingBalanceOwner.Addresses...)
			case *ptxs.IncreaseL1ValidatorBalanceTx:
				l1 += u.Balance
			case *ptxs.DisableL1ValidatorTx, *ptxs.SetL1ValidatorWeightTx:
				// Either may refund the validator's balance: as UTXOs
				// numbered after the tx's own outputs.
				refundTxs[tx.ID()] = uint32(len(tx.Unsigned.Outputs()))
			}
			for _, in := range inputsOf(tx.Unsigned) {
				if outs, ok := refundTxs[in.TxID]; ok && in.OutputIndex >= outs {
					spentRefunds.Add(spentRefunds, new(big.Int).SetUint64(in.In.Amount()))
				}
			}
			deposits.Add(deposits, new(big.Int).SetUint64(l1))
			locked.track(t, tx.ID(), tx.Unsigned, avaxID)
			in, out := avaxFlows(t, tx.Unsigned, avaxID)
			out.Add(out, new(big.Int).SetUint64(l1))
			if in.Cmp(out) > 0 {
				pBurned.Add(pBurned, in.Sub(in, out))
			}
		}
	}
	balances := new(big.Int)
	for _, id := range validations {
		v, _, err := pc.GetL1Validator(ctx, id)
		if err != nil && strings.Contains(err.Error(), "not found") {
			// Removed (its weight set to 0), by this or another test on
			// the shared network: it holds nothing, its refund is counted
			// from its SetL1ValidatorWeightTx.
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		balances.Add(balances, new(big.Int).SetUint64(v.Balance))
	}
	// The refunds: those spent since, and those the owners hold.
	refunds := new(big.Int).Set(spentRefunds)
	if len(owners) > 0 && len(refundTxs) > 0 {
		utxos, _, _, err := pc.GetUTXOs(ctx, owners, 1024, ids.ShortEmpty, ids.Empty)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range utxos {
			var u avax.UTXO
			if _, err := ptxs.Codec.Unmarshal(b, &u); err != nil {
				t.Fatal(err)
			}
			if outs, ok := refundTxs[u.TxID]; ok && u.OutputIndex >= outs {
				refunds.Add(refunds, new(big.Int).SetUint64(u.Out.(avax.Amounter).Amount()))
			}
		}
	}
	l1Fees := new(big.Int).Sub(deposits, balances)
	l1Fees.Sub(l1Fees, refunds)
	pBurned.Add(pBurned, l1Fees)

	// X-chain: every fee is the node's.
	txFee, assetFee, err := xc.GetTxFee(ctx)
	if err != nil {
		t.Fatal(err)
	}
	parser, err := xblock.NewParser([]fxs.Fx{&secp256k1fx.Fx{}, &nftfx.Fx{}, &propertyfx.Fx{}})
	if err != nil {
		t.Fatal(err)
	}
	xTip, err := xc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	xBurned := new(big.Int)
	for h := uint64(1); h <= xTip; h++ {
		raw, err := xc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := parser.ParseBlock(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Txs() {
			locked.track(t, tx.ID(), tx.Unsigned, avaxID)
			in, out := avaxFlows(t, tx.Unsigned, avaxID)
			fee := in.Sub(in, out)
			want := txFee
			if _, ok := tx.Unsigned.(*xtxs.CreateAssetTx); ok {
				want = assetFee
			}
			if fee.Cmp(new(big.Int).SetUint64(want)) != 0 {
				t.Errorf("X-chain tx %s (%T) burns %s; avm.getTxFee says %d", tx.ID(), tx.Unsigned, fee, want)
			}
			xBurned.Add(xBurned, fee)
		}
	}

	// C-chain: the receipts' fees, in wei, and the atomic txs', in nAVAX.
	ec, err := n.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	cTip, err := ec.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	evmFees, atomicFees := new(big.Int), new(big.Int)
	for h := uint64(0); h <= cTip; h++ {
		var b struct {
			Transactions []common.Hash `json:"transactions"`
			BaseFee      *hexutil.Big  `json:"baseFeePerGas"`
			ExtData      hexutil.Bytes `json:"blockExtraData"`
		}
		if err := ec.Client().CallContext(ctx, &b, "eth_getBlockByNumber", hexutil.Uint64(h), false); err != nil {
			t.Fatal(err)
		}
		for _, hash := range b.Transactions {
			var r struct {
				GasUsed           hexutil.Uint64 `json:"gasUsed"`
				EffectiveGasPrice *hexutil.Big   `json:"effectiveGasPrice"`
			}
			if err := ec.Client().CallContext(ctx, &r, "eth_getTransactionReceipt", hash); err != nil {
				t.Fatal(err)
			}
			price := r.EffectiveGasPrice.ToInt()
			if b.BaseFee != nil && price.Cmp(b.BaseFee.ToInt()) < 0 {
				t.Errorf("tx %s paid %s a gas, below block %d's base fee %s", hash, price, h, b.BaseFee.ToInt())
			}
			evmFees.Add(evmFees, new(big.Int).Mul(new(big.Int).SetUint64(uint64(r.GasUsed)), price))
		}
		if len(b.ExtData) == 0 {
			continue
		}
		atxs, err := atomic.ExtractAtomicTxs(b.ExtData, true, atomic.Codec)
		if err != nil {
			t.Fatalf("C-chain block %d: atomic txs: %v", h, err)
		}
		for _, tx := range atxs {
			in, out := avaxFlows(t, tx.UnsignedAtomicTx, avaxID)
			if in.Cmp(out) > 0 {
				atomicFees.Add(atomicFees, in.Sub(in, out))
			}
		}
	}
	cBurned := new(big.Int).Add(new(big.Int).Mul(atomicFees, big.NewInt(1e9)), evmFees)

	supply, _, err := pc.GetCurrentSupply(ctx, constants.PrimaryNetworkID)
	if err != nil {
		t.Fatal(err)
	}
	staked, err := pc.GetTotalStake(ctx, constants.PrimaryNetworkID)
	if err != nil {
		t.Fatal(err)
	}
	cfg := genesis.GetConfig(n.NetworkID)
	if n.GenesisFile != "" {
		if cfg, err = genesis.GetConfigFile(n.GenesisFile); err != nil {
			t.Fatal(err)
		}
	}
	initial, err := cfg.InitialSupply()
	if err != nil {
		t.Fatal(err)
	}
	// The local network's genesis unlocks are past: what is locked is
	// what the blocks' txs locked.
	lockedSum := locked.after(uint64(tipTime.Unix()))
	circ := new(big.Int).Mul(new(big.Int).SetUint64(supply), big.NewInt(1e9))
	circ.Sub(circ, new(big.Int).Mul(new(big.Int).Add(new(big.Int).Add(pBurned, xBurned), lockedSum), big.NewInt(1e9)))
	circ.Sub(circ, cBurned)
	return api.AvaxSupplyResponse{
		CirculatingSupply: decimalAVAX(circ, 18),
		TotalSupply:       decimalAVAX(new(big.Int).SetUint64(supply), 9),
		TotalPBurned:      decimalAVAX(pBurned, 9),
		TotalCBurned:      decimalAVAX(cBurned, 18),
		TotalXBurned:      decimalAVAX(xBurned, 9),
		TotalStaked:       decimalAVAX(new(big.Int).SetUint64(staked), 9),
		TotalLocked:       decimalAVAX(lockedSum, 9),
		TotalRewards:      decimalAVAX(new(big.Int).SetUint64(supply-initial), 9),
		LastUpdated:       tipTime.UTC().Format("2006-01-02T15:04:05.000Z"),
		GenesisUnlock:     decimalAVAX(new(big.Int).SetUint64(initial), 9),
		L1ValidatorFees:   decimalAVAX(l1Fees, 9),
	}, refunds
}

// decimalAVAX writes v units of 10^-decimals AVAX with big.Rat: exact,
// without trailing zeros.
func decimalAVAX(v *big.Int, decimals int) string {
	s := new(big.Rat).SetFrac(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)).FloatString(decimals)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// avaxFlows sums the AVAX a tx of any chain takes in (its inputs, imported
// ones included, EVM inputs of an atomic export) and puts out (its
// outputs, stake and exported ones included, EVM outputs of an atomic
// import), reading the fields by name.
func avaxFlows(t *testing.T, unsigned any, avaxID ids.ID) (in, out *big.Int) {
	t.Helper()
	in, out = new(big.Int), new(big.Int)
	v := reflect.ValueOf(unsigned)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	add := func(dst *big.Int, field string) {
		f := v.FieldByName(field)
		if !f.IsValid() {
			return
		}
		for i := 0; i < f.Len(); i++ {
			switch e := f.Index(i).Interface().(type) {
			case *avax.TransferableInput:
				if e.AssetID() == avaxID {
					dst.Add(dst, new(big.Int).SetUint64(e.In.Amount()))
				}
			case *avax.TransferableOutput:
				if e.AssetID() == avaxID {
					dst.Add(dst, new(big.Int).SetUint64(e.Out.Amount()))
				}
			case atomic.EVMInput:
				if e.AssetID == avaxID {
					dst.Add(dst, new(big.Int).SetUint64(e.Amount))
				}
			case atomic.EVMOutput:
				if e.AssetID == avaxID {
					dst.Add(dst, new(big.Int).SetUint64(e.Amount))
				}
			default:
				t.Fatalf("%T.%s holds a %T", unsigned, field, e)
			}
		}
	}
	for _, f := range []string{"Ins", "ImportedInputs", "ImportedIns"} {
		add(in, f)
	}
	for _, f := range []string{"Outs", "ExportedOutputs", "ExportedOuts", "StakeOuts"} {
		add(out, f)
	}
	return in, out
}

// lockedOutputs are the AVAX outputs with a locktime (the owners', or a
// stakeable.LockOut's) that the blocks' txs made and no later tx spent, by
// UTXO key.
type lockedOutputs map[ids.ID]struct{ amount, locktime uint64 }

// track adds tx's own locked outputs and removes those its inputs spend.
func (l lockedOutputs) track(t *testing.T, txID ids.ID, unsigned any, avaxID ids.ID) {
	t.Helper()
	v := reflect.ValueOf(unsigned)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	for _, field := range []string{"Ins", "ImportedInputs", "ImportedIns"} {
		if f := v.FieldByName(field); f.IsValid() {
			for i := 0; i < f.Len(); i++ {
				delete(l, f.Index(i).Interface().(*avax.TransferableInput).InputID())
			}
		}
	}
	f := v.FieldByName("Outs")
	if !f.IsValid() {
		return
	}
	for i := 0; i < f.Len(); i++ {
		o, ok := f.Index(i).Interface().(*avax.TransferableOutput)
		if !ok || o.AssetID() != avaxID {
			continue
		}
		lock := uint64(0)
		out := o.Out
		if lo, ok := out.(*stakeable.LockOut); ok {
			lock, out = lo.Locktime, lo.TransferableOut
		}
		if to, ok := out.(*secp256k1fx.TransferOutput); ok && to.Locktime > lock {
			lock = to.Locktime
		}
		if lock > 0 {
			l[(&avax.UTXOID{TxID: txID, OutputIndex: uint32(i)}).InputID()] = struct{ amount, locktime uint64 }{o.Out.Amount(), lock}
		}
	}
}

// after sums the outputs locked past at.
func (l lockedOutputs) after(at uint64) *big.Int {
	sum := new(big.Int)
	for _, o := range l {
		if o.locktime > at {
			sum.Add(sum, new(big.Int).SetUint64(o.amount))
		}
	}
	return sum
}

// inputsOf is a P-chain tx's inputs, imported ones included.
func inputsOf(unsigned ptxs.UnsignedTx) []*avax.TransferableInput {
	v := reflect.ValueOf(unsigned).Elem()
	var out []*avax.TransferableInput
	for _, field := range []string{"Ins", "ImportedInputs"} {
		if f := v.FieldByName(field); f.IsValid() {
			out = append(out, f.Interface().([]*avax.TransferableInput)...)
		}
	}
	return out
}

// registeredValidation is the L1 validator a RegisterL1ValidatorTx's warp
// message registers.
func registeredValidation(t *testing.T, msg []byte) *message.RegisterL1Validator {
	t.Helper()
	wm, err := warp.ParseMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	call, err := payload.ParseAddressedCall(wm.Payload)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := message.ParseRegisterL1Validator(call.Payload)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestBurnedBackfill makes a store indexed before migration 0033 (no
// burned sums, the migration's backfill asked for) and checks that opening
// it asks for the P-, X- and C-chains' rederives, which with the EVM sums
// the backfill writes give every derived table as indexed from scratch.
func TestBurnedBackfill(t *testing.T) {
	n, _ := issuedNetwork(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, want := indexedStore(t, n, dsn)
		keys := map[string]bool{}
		for _, row := range want["burned"] {
			keys[strings.Fields(row)[0]] = true
		}
		for _, k := range []string{"sum_key=P", "sum_key=X", "sum_key=C", "sum_key=P:l1deposits", fmt.Sprintf("sum_key=evm:%d", n.EVMChainID)} {
			if !keys[k] {
				t.Fatalf("the indexed store has no %s sum (%v): the comparison would prove nothing", k, want["burned"])
			}
		}
		for _, q := range []string{"DELETE FROM burned", "INSERT INTO settings (key, value) VALUES ('backfill:burned', '')"} {
			if _, err := db.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		if err := derive.RunBackfills(ctx, st, log, derive.BackfillOptions{Chunk: 5}); err != nil {
			t.Fatal(err)
		}
		pending, err := st.PendingRederives(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var chains []internal.Chain
		for _, r := range pending {
			chains = append(chains, r.Chain)
		}
		if fmt.Sprint(chains) != fmt.Sprint([]internal.Chain{internal.PChain, internal.XChain, internal.CChain}) &&
			fmt.Sprint(chains) != fmt.Sprint([]internal.Chain{internal.CChain, internal.PChain, internal.XChain}) {
			t.Fatalf("after the backfill the pending rederives are %v, want P, X and C", chains)
		}
		if err := derive.RunPendingRederives(ctx, st, log, derive.RederiveOptions{BatchSize: 7}); err != nil {
			t.Fatal(err)
		}
		if diff := diffDumps(want, dumpTables(t, db, derivedTables)); len(diff) > 0 {
			t.Fatalf("the backfilled store differs from the one indexed from scratch:\n%s", strings.Join(diff, "\n"))
		}
	})
}

// TestAvaxSupplyL1Refunds runs an L1 validator through its whole life on
// the custom network (its balance increased, then refunded by a disable)
// and checks getAvaxSupply's P-chain fields against the node, on both
// stores: the L1 fees are the deposits less the refund UTXO the node holds
// (or a later tx spent) less the balances platform.getL1Validator answers.
func TestAvaxSupplyL1Refunds(t *testing.T) {
	n := testnet.GetCustom(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := n.IssueL1Lifecycle(ctx); err != nil {
		t.Fatal(err)
	}
	doc := openapitest.Default(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--genesis-file", n.GenesisFile)
		var problem string
		for attempt := 0; attempt < 5; attempt++ {
			tip, err := n.PClient().GetHeight(ctx)
			if err != nil {
				t.Fatal(err)
			}
			waitIndexed(t, base, tip, time.Minute)
			want, refunds := supplyAndRefunds(t, n)
			if refunds.Sign() == 0 {
				t.Fatal("the node holds no L1 refund: the comparison would not count one")
			}
			var got api.AvaxSupplyResponse
			if st := getJSON(t, doc, "/v1/avax/supply", base+"/v1/avax/supply", &got); st != 200 {
				t.Fatalf("getAvaxSupply: %d", st)
			}
			g := [4]string{got.TotalSupply, got.TotalPBurned, got.L1ValidatorFees, got.GenesisUnlock}
			w := [4]string{want.TotalSupply, want.TotalPBurned, want.L1ValidatorFees, want.GenesisUnlock}
			if problem = ""; g != w {
				problem = fmt.Sprintf("getAvaxSupply's supply, P burned, L1 fees and genesis = %v; from the node %v", g, w)
				time.Sleep(time.Second)
				continue
			}
			if want.L1ValidatorFees == "0" {
				t.Error("no L1 validator fee to compare")
			}
			t.Logf("getAvaxSupply = %+v", got)
			break
		}
		if problem != "" {
			t.Error(problem)
		}
	})
}
