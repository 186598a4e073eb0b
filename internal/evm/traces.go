package evm

import (
	"bytes"
	"fmt"
	"math/big"
	"slices"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// NativeMinter is the address of subnet-evm's native minter precompile,
// whose mintNativeCoin(address,uint256) credits an account without the
// prestate tracer seeing the account.
var NativeMinter = common.HexToAddress("0x0200000000000000000000000000000000000001")

var mintNativeCoin = selector("mintNativeCoin(address,uint256)")

// balances folds a block's balance changes in execution order: per
// address, the balance after the last tx that set it (abs) plus what
// changed it after (delta), or only a delta on the balance before the
// block, or "ask the node" (ask).
type balances map[common.Address]*balanceState

type balanceState struct {
	abs   *big.Int
	delta *big.Int
	ask   bool
}

func (m balances) get(a common.Address) *balanceState {
	s, ok := m[a]
	if !ok {
		s = &balanceState{delta: new(big.Int)}
		m[a] = s
	}
	return s
}

// set records a's balance as a trace gives it.
func (m balances) set(a common.Address, v *big.Int) {
	s := m.get(a)
	s.abs, s.ask = v, false
	s.delta.SetUint64(0)
}

// add records an amount moved into (negative: out of) a's balance.
func (m balances) add(a common.Address, v *big.Int) {
	s := m.get(a)
	switch {
	case s.ask:
		// The node's answer after the block includes it.
	case s.abs != nil:
		s.abs.Add(s.abs, v)
	default:
		s.delta.Add(s.delta, v)
	}
}

func (m balances) ask(a common.Address) {
	s := m.get(a)
	s.abs, s.ask = nil, true
	s.delta.SetUint64(0)
}

// changes returns the block's balance changes and the addresses to ask
// the node about.
func (m balances) changes() ([]BalanceChange, []common.Address) {
	var out []BalanceChange
	var ask []common.Address
	for a, s := range m {
		switch {
		case s.ask:
			ask = append(ask, a)
		case s.abs != nil:
			out = append(out, BalanceChange{Address: a, Balance: s.abs})
		case s.delta.Sign() != 0:
			out = append(out, BalanceChange{Address: a, Delta: s.delta})
		}
	}
	sortBalances(out)
	slices.SortFunc(ask, func(x, y common.Address) int { return bytes.Compare(x[:], y[:]) })
	return out, ask
}

func sortBalances(bs []BalanceChange) {
	slices.SortFunc(bs, func(x, y BalanceChange) int { return bytes.Compare(x.Address[:], y.Address[:]) })
}

// applyTrace reads tx i's trace: its internal txs and internal
// deployments from the call frames, its balance changes from the prestate
// diff, and the mints of the native minter, which the diff does not show.
func (d *decoder) applyTrace(i int, tr *rpcTrace) error {
	tx := &d.b.Txs[i]
	if tr.Error != "" || tr.Result == nil || tr.Result.Call == nil || tr.Result.Prestate == nil {
		return fmt.Errorf("tx %s: no trace (%q)", tx.Hash, tr.Error)
	}
	if h, err := hash("txHash", tr.TxHash); err != nil || h != tx.Hash {
		return fmt.Errorf("trace %d is of tx %s, not %s", i, tr.TxHash, tx.Hash)
	}
	f := frameWalk{d: d, tx: tx, created: map[common.Address]bool{}}
	if tx.To == nil && tx.ContractAddress != nil && tx.Status == 1 {
		f.created[*tx.ContractAddress] = true
	}
	top := tr.Result.Call
	reverted := top.Error != ""
	for k := range top.Calls {
		if err := f.walk(&top.Calls[k], reverted); err != nil {
			return fmt.Errorf("tx %s: %w", tx.Hash, err)
		}
	}
	// A tx sent to the minter itself (how its admin mints): the top frame's
	// gasUsed is the tx's, intrinsic gas included, so the precompile ran
	// when the tx used more than that.
	if tx.To != nil && *tx.To == NativeMinter && !reverted {
		gasUsed, err := optQuantity("frame gasUsed", top.GasUsed)
		if err != nil {
			return fmt.Errorf("tx %s: %w", tx.Hash, err)
		}
		in, err := data("frame input", top.Input)
		if err != nil {
			return fmt.Errorf("tx %s: %w", tx.Hash, err)
		}
		f.mint(*tx.To, in, gasUsed, intrinsicGas(in))
	}

	diff := tr.Result.Prestate
	touched := make(map[common.Address]bool, len(diff.Post)+len(diff.Pre))
	for k, acct := range diff.Post {
		a, err := address("prestate post", k)
		if err != nil {
			return fmt.Errorf("tx %s: %w", tx.Hash, err)
		}
		touched[a] = true
		if acct.Balance == nil {
			continue // its nonce, code or storage changed
		}
		v, err := bigQuantity("prestate balance", *acct.Balance)
		if err != nil {
			return fmt.Errorf("tx %s: %w", tx.Hash, err)
		}
		d.bal.set(a, v)
	}
	for k := range diff.Pre {
		a, err := address("prestate pre", k)
		if err != nil {
			return fmt.Errorf("tx %s: %w", tx.Hash, err)
		}
		if touched[a] {
			continue
		}
		touched[a] = true
		// In pre and not post: the account self-destructed, and holds
		// nothing after the tx, unless (since Cancun) it named itself the
		// beneficiary without having been created by the tx; the node
		// tells that balance.
		if f.selfFunded[a] && !f.created[a] {
			d.bal.ask(a)
		} else {
			d.bal.set(a, new(big.Int))
		}
	}
	for _, m := range f.mints {
		if !touched[m.to] {
			d.bal.add(m.to, m.amount)
		}
	}
	return nil
}

type mint struct {
	to     common.Address
	amount *big.Int
}

// frameWalk flattens one tx's call frames.
type frameWalk struct {
	d          *decoder
	tx         *internal.EVMTx
	created    map[common.Address]bool
	selfFunded map[common.Address]bool
	mints      []mint
	next       uint32
}

// mint records the mint of a call to `to` with input that used gasUsed,
// when it is a call to the native minter's mintNativeCoin on an L1 and used
// more gas than minGas (the precompile ran). A mint moves nothing the trace
// shows.
func (f *frameWalk) mint(to common.Address, input []byte, gasUsed, minGas uint64) {
	if to != NativeMinter || f.d.cfg.IsCChain || gasUsed <= minGas || len(input) < 68 || !bytes.Equal(input[:4], mintNativeCoin) {
		return
	}
	f.mints = append(f.mints, mint{to: common.BytesToAddress(input[4:36]), amount: new(big.Int).SetBytes(input[36:68])})
}

// intrinsicGas is the gas a call tx with input pays before it runs
// (EIP-2028 calldata prices), without access lists.
func intrinsicGas(input []byte) uint64 {
	g := uint64(21_000)
	for _, b := range input {
		if b == 0 {
			g += 4
		} else {
			g += 16
		}
	}
	return g
}

func (f *frameWalk) walk(c *callFrame, parentReverted bool) error {
	index := f.next
	f.next++
	reverted := parentReverted || c.Error != ""
	from, err := address("frame from", c.From)
	if err != nil {
		return err
	}
	var to common.Address
	if c.To != "" { // a failed creation has none
		if to, err = address("frame to", c.To); err != nil {
			return err
		}
	}
	value, err := bigQuantity("frame value", c.Value)
	if err != nil {
		return err
	}
	gas, err := optQuantity("frame gas", c.Gas)
	if err != nil {
		return err
	}
	gasUsed, err := optQuantity("frame gasUsed", c.GasUsed)
	if err != nil {
		return err
	}
	f.d.b.InternalTxs = append(f.d.b.InternalTxs, internal.EVMInternalTx{TxHash: f.tx.Hash, BlockNumber: f.d.b.Number,
		Index: index, From: from, To: to, Value: value, CallType: c.Type, Gas: gas, GasUsed: gasUsed, Reverted: reverted})
	if !reverted {
		switch c.Type {
		case "CREATE", "CREATE2":
			f.created[to] = true
			deployer := from
			f.d.b.Contracts = append(f.d.b.Contracts, internal.EVMContract{Address: to, Deployer: f.tx.From,
				DeployerContract: &deployer, TxHash: f.tx.Hash, BlockNumber: f.d.b.Number, Timestamp: f.d.b.Timestamp,
				Index: uint64(f.tx.Index)<<16 + uint64(index) + 1, CreateType: c.Type, Type: internal.ERCUnknown})
		case "SELFDESTRUCT":
			if from == to {
				if f.selfFunded == nil {
					f.selfFunded = map[common.Address]bool{}
				}
				f.selfFunded[from] = true
			}
		case "CALL":
			// A call to the minter's address where no precompile runs uses
			// no gas; a reverted mint credits nothing.
			if !reverted {
				if in, err := data("frame input", c.Input); err == nil {
					f.mint(to, in, gasUsed, 0)
				}
			}
		}
	}
	for k := range c.Calls {
		if err := f.walk(&c.Calls[k], reverted); err != nil {
			return err
		}
	}
	return nil
}
