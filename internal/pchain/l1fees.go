package pchain

import (
	"fmt"
	"slices"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/upgrade"
	"github.com/ava-labs/avalanchego/utils/math"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/gas"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/validators/fee"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
)

// L1 validators pay a continuous fee from their balance. The P-chain keeps
// it as one running total, the accrued fees, and each active validator's
// end point (EndAccumulatedFee): the validator is deactivated once the
// total reaches it, and its remaining balance is its end point minus the
// total. None of this is in a block; it follows from the block times and
// the L1 transactions, replayed here as the executor does.

func (s *L1Fees) active() uint64 {
	n := uint64(0)
	for _, v := range s.Validators {
		if v.End != 0 {
			n++
		}
	}
	return n
}

// advance moves the chain time to t at the block at height, charging the active validators for the
// elapsed seconds and deactivating those whose balance ran out.
func (s *L1Fees) advance(cfg fee.Config, etna bool, height, t uint64) error {
	if t <= s.Time {
		return nil
	}
	seconds := t - s.Time
	s.Time = t
	if !etna {
		return nil
	}
	state := fee.State{Current: gas.Gas(s.active()), Excess: s.Excess}
	accrued, err := math.Add(s.Accrued, state.CostOf(cfg, seconds))
	if err != nil {
		return fmt.Errorf("accrued L1 validator fees: %w", err)
	}
	s.Accrued = accrued
	var out []ids.ID
	for id, v := range s.Validators {
		if v.End != 0 && v.End <= s.Accrued {
			if s.History != nil {
				out = append(out, id)
				s.History.Changes = append(s.History.Changes, L1BalanceChange{ValidationID: id, Height: height,
					Index: -1, Time: t, Kind: L1BalanceDeactivate, Accrued: v.End})
			}
			v.End = 0
		}
	}
	if len(out) > 1 { // map order: sort the deactivations of one block
		n := len(s.History.Changes)
		slices.SortFunc(s.History.Changes[n-len(out):], func(a, b L1BalanceChange) int {
			return a.ValidationID.Compare(b.ValidationID)
		})
	}
	s.Excess = state.AdvanceTime(cfg.Target, seconds).Excess
	return nil
}

// ApplyBlocks replays blocks (ascending heights from s.Next on) of the
// network networkID, whose AVAX is avaxAssetID, with their L1 events (in
// chain order) and returns the refunds they create.
func (s *L1Fees) ApplyBlocks(networkID uint32, avaxAssetID ids.ID, blocks []*Block, events []L1Event) ([]L1Refund, error) {
	cfg := genesis.GetTxFeeConfig(networkID).ValidatorFeeConfig
	up := upgrade.GetConfig(networkID)
	byHeight := map[uint64][]L1Event{}
	for _, e := range events {
		byHeight[e.Height] = append(byHeight[e.Height], e)
	}
	var refunds []L1Refund
	for _, b := range blocks {
		if b.Height < s.Next {
			continue // applied already
		}
		before := s.Accrued
		if !b.Timestamp.IsZero() {
			t := uint64(b.Timestamp.Unix())
			if err := s.advance(cfg, up.IsEtnaActivated(time.Unix(int64(t), 0)), b.Height, t); err != nil {
				return nil, err
			}
		}
		if s.History != nil && (len(s.Validators) > 0 || s.Accrued > 0) {
			s.History.Blocks = append(s.History.Blocks, L1FeeBlock{Height: b.Height, Time: s.Time, Before: before, After: s.Accrued})
		}
		for _, e := range byHeight[b.Height] {
			_, had := s.Validators[e.ValidationID]
			r, err := s.apply(b, e, avaxAssetID)
			if err != nil {
				return nil, fmt.Errorf("block %d tx %s: %w", b.Height, e.TxID, err)
			}
			if r != nil {
				refunds = append(refunds, *r)
			}
			s.record(e, r, had)
		}
		s.Next = b.Height + 1
	}
	return refunds, nil
}

// record adds the balance change that e, just applied, made (r its
// refund; had: the state held its validator before) to the history.
func (s *L1Fees) record(e L1Event, r *L1Refund, had bool) {
	if s.History == nil {
		return
	}
	c := L1BalanceChange{ValidationID: e.ValidationID, Height: e.Height, Index: e.Index, Time: s.Time, Accrued: s.Accrued}
	v := s.Validators[e.ValidationID]
	switch {
	case e.Kind == L1Convert || e.Kind == L1Register:
		c.Kind, c.Amount = L1BalanceRegister, e.Balance
	case e.Kind == L1IncreaseBalance && had:
		c.Kind, c.Amount = L1BalanceIncrease, e.Balance
	case e.Kind == L1Disable && had:
		c.Kind = L1BalanceDisable
	case e.Kind == L1SetWeight && e.Weight == 0 && had:
		c.Kind = L1BalanceRemove
	default:
		return // a weight change, or a validator the state does not hold
	}
	if r != nil {
		c.Amount = r.Amount
	}
	if v != nil {
		c.End = v.End
	}
	s.History.Changes = append(s.History.Changes, c)
}

func (s *L1Fees) apply(b *Block, e L1Event, avaxAssetID ids.ID) (*L1Refund, error) {
	if s.Validators == nil {
		s.Validators = map[ids.ID]*L1FeeValidator{}
	}
	v := s.Validators[e.ValidationID]
	switch e.Kind {
	case L1Convert, L1Register:
		nv := &L1FeeValidator{}
		if e.RemainingBalanceOwner != nil {
			nv.Owner = *e.RemainingBalanceOwner
		}
		if e.Balance != 0 {
			end, err := math.Add(s.Accrued, e.Balance)
			if err != nil {
				return nil, err
			}
			nv.End = end
		}
		s.Validators[e.ValidationID] = nv
	case L1IncreaseBalance:
		if v == nil {
			return nil, nil
		}
		base := v.End
		if base == 0 {
			base = s.Accrued // reactivation
		}
		end, err := math.Add(base, e.Balance)
		if err != nil {
			return nil, err
		}
		v.End = end
	case L1Disable, L1SetWeight:
		if v == nil || (e.Kind == L1SetWeight && e.Weight != 0) {
			return nil, nil
		}
		var refund *L1Refund
		if v.End != 0 {
			outs, err := txOuts(b, e)
			if err != nil {
				return nil, err
			}
			refund = &L1Refund{TxID: e.TxID, OutputIndex: uint32(outs), Height: b.Height, Index: e.Index,
				Amount: v.End - s.Accrued, Owner: v.Owner}
			if refund.UTXO, err = NewUTXO(&avax.UTXO{
				UTXOID: avax.UTXOID{TxID: e.TxID, OutputIndex: refund.OutputIndex},
				Asset:  avax.Asset{ID: avaxAssetID},
				Out: &secp256k1fx.TransferOutput{Amt: refund.Amount, OutputOwners: secp256k1fx.OutputOwners{
					Locktime: v.Owner.Locktime, Threshold: v.Owner.Threshold, Addrs: v.Owner.Addresses,
				}},
			}, KindRegular); err != nil {
				return nil, err
			}
		}
		if e.Kind == L1Disable {
			v.End = 0
		} else {
			delete(s.Validators, e.ValidationID)
		}
		return refund, nil
	}
	return nil, nil
}

// txOuts returns how many outputs the tx of e has: the refund follows them.
func txOuts(b *Block, e L1Event) (int, error) {
	if e.Index < 0 || e.Index >= len(b.Txs) || b.Txs[e.Index].ID != e.TxID {
		return 0, fmt.Errorf("tx %s is not at position %d of block %d", e.TxID, e.Index, b.Height)
	}
	tx := b.Txs[e.Index].Tx
	switch u := tx.Unsigned.(type) {
	case *txs.DisableL1ValidatorTx:
		return len(u.Outs), nil
	case *txs.SetL1ValidatorWeightTx:
		return len(u.Outs), nil
	}
	return 0, fmt.Errorf("%T refunds no L1 validator", tx.Unsigned)
}
