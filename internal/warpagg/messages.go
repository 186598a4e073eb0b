package warpagg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"

	"google.golang.org/protobuf/proto"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"

	pvmpb "github.com/ava-labs/avalanchego/proto/pb/platformvm"

	"github.com/avaindex/avaindex/internal/derrors"
)

// ParseMessage parses a message as callers give it: the bytes of an
// unsigned warp message, or the ABI-encoded data of a warp precompile's
// SendWarpMessage log (abi.encode(bytes unsignedMessage)).
func ParseMessage(b []byte) (*warp.UnsignedMessage, error) {
	msg, rawErr := warp.ParseUnsignedMessage(b)
	if rawErr == nil {
		return msg, nil
	}
	inner, ok := abiBytes(b)
	if !ok {
		return nil, invalid("message is neither an unsigned warp message (%s) nor the ABI-encoded data of a SendWarpMessage log", rawErr)
	}
	msg, err := warp.ParseUnsignedMessage(inner)
	if err != nil {
		return nil, invalid("message is ABI-encoded bytes that are not an unsigned warp message: %s", err)
	}
	return msg, nil
}

// abiBytes decodes abi.encode(bytes): a 32-byte offset, at the offset a
// 32-byte length, then the bytes, zero-padded to a multiple of 32.
func abiBytes(b []byte) ([]byte, bool) {
	word := func(at int) (int, bool) {
		if at < 0 || at+32 > len(b) {
			return 0, false
		}
		v := new(big.Int).SetBytes(b[at : at+32])
		if !v.IsInt64() || v.Int64() > int64(len(b)) {
			return 0, false
		}
		return int(v.Int64()), true
	}
	off, ok := word(0)
	if !ok || off%32 != 0 || off < 32 {
		return nil, false
	}
	n, ok := word(off)
	if !ok {
		return nil, false
	}
	start := off + 32
	end := start + n
	padded := start + (n+31)/32*32
	if end > len(b) || padded != len(b) {
		return nil, false
	}
	if !bytes.Equal(b[end:], make([]byte, padded-end)) {
		return nil, false
	}
	return b[start:end], true
}

// P-chain messages. The P-chain's ACP-118 handler signs only messages with
// an AddressedCall payload without source address that carries one of
// these; CheckPChainMessage refuses the others up front, with the reason.

// CheckPChainMessage checks a message whose source is the P-chain and its
// justification as the P-chain's signature request verifier will (the
// parts that need no P-chain state).
func CheckPChainMessage(msg *warp.UnsignedMessage, justification []byte) error {
	call, err := payload.ParseAddressedCall(msg.Payload)
	if err != nil {
		return invalid("the P-chain signs only AddressedCall payloads: %s", err)
	}
	if len(call.SourceAddress) != 0 {
		return invalid("the P-chain signs only AddressedCall payloads without a source address")
	}
	parsed, err := message.Parse(call.Payload)
	if err != nil {
		return invalid("the P-chain signs only SubnetToL1Conversion, L1ValidatorRegistration and L1ValidatorWeight messages: %s", err)
	}
	switch m := parsed.(type) {
	case *message.SubnetToL1Conversion:
		if _, err := ids.ToID(justification); err != nil {
			return invalid("the justification of a SubnetToL1Conversion message must be the 32-byte id of the converted subnet, got %d bytes", len(justification))
		}
	case *message.L1ValidatorRegistration:
		if m.Registered {
			return nil
		}
		id, err := validationIDOfJustification(justification)
		if err != nil {
			return err
		}
		if id != m.ValidationID {
			return invalid("the justification is for validation %s, the message for %s", id, m.ValidationID)
		}
	case *message.L1ValidatorWeight:
	default:
		return invalid("the P-chain signs only SubnetToL1Conversion, L1ValidatorRegistration and L1ValidatorWeight messages, not %T", parsed)
	}
	return nil
}

// validationIDOfJustification returns the validation id an
// L1ValidatorRegistrationJustification is about.
func validationIDOfJustification(justification []byte) (ids.ID, error) {
	const want = "the justification of an L1ValidatorRegistration message with registered=false must be an L1ValidatorRegistrationJustification (protobuf)"
	var j pvmpb.L1ValidatorRegistrationJustification
	if err := proto.Unmarshal(justification, &j); err != nil {
		return ids.Empty, invalid("%s: %s", want, err)
	}
	switch p := j.GetPreimage().(type) {
	case *pvmpb.L1ValidatorRegistrationJustification_ConvertSubnetToL1TxData:
		subnetID, err := ids.ToID(p.ConvertSubnetToL1TxData.GetSubnetId())
		if err != nil {
			return ids.Empty, invalid("%s: its subnet id: %s", want, err)
		}
		return subnetID.Append(p.ConvertSubnetToL1TxData.GetIndex()), nil
	case *pvmpb.L1ValidatorRegistrationJustification_RegisterL1ValidatorMessage:
		reg, err := message.ParseRegisterL1Validator(p.RegisterL1ValidatorMessage)
		if err != nil {
			return ids.Empty, invalid("%s: its RegisterL1Validator message: %s", want, err)
		}
		return reg.ValidationID(), nil
	}
	return ids.Empty, invalid("%s, with one of its two preimages", want)
}

// MessageOfJustification rebuilds, from an L1ValidatorRegistrationJustification
// alone, the message it justifies: the P-chain's L1ValidatorRegistration
// with registered=false for the validation id it names.
func MessageOfJustification(networkID uint32, justification []byte) (*warp.UnsignedMessage, error) {
	id, err := validationIDOfJustification(justification)
	if err != nil {
		return nil, err
	}
	reg, err := message.NewL1ValidatorRegistration(id, false)
	if err != nil {
		return nil, err
	}
	return pChainMessage(networkID, reg.Bytes())
}

// pChainMessage wraps an L1 message in an AddressedCall without source
// address, in a warp message from the P-chain.
func pChainMessage(networkID uint32, l1Message []byte) (*warp.UnsignedMessage, error) {
	call, err := payload.NewAddressedCall(nil, l1Message)
	if err != nil {
		return nil, fmt.Errorf("warpagg: addressed call: %w", err)
	}
	msg, err := warp.NewUnsignedMessage(networkID, constants.PlatformChainID, call.Bytes())
	if err != nil {
		return nil, fmt.Errorf("warpagg: warp message: %w", err)
	}
	return msg, nil
}

// TxSource finds P-chain transactions and L1 validators.
type TxSource interface {
	// PTx returns the P-chain transaction txID; an error wrapping
	// derrors.NotFound when there is none.
	PTx(ctx context.Context, txID ids.ID) (*txs.Tx, error)
	// L1ValidatorOrigin returns the L1 (subnet) of the validation
	// validationID and the tx that added it (a ConvertSubnetToL1Tx or a
	// RegisterL1ValidatorTx); an error wrapping derrors.NotFound when the
	// validation is unknown.
	L1ValidatorOrigin(ctx context.Context, validationID ids.ID) (subnetID, addedTxID ids.ID, err error)
}

// TxMessage is the warp message a P-chain transaction calls for.
type TxMessage struct {
	Message       *warp.UnsignedMessage
	Justification []byte
	// SubnetID is the L1 the message concerns: its validators sign it.
	SubnetID ids.ID
}

// MessageOfTx returns the P-chain message that the L1 transaction txID
// calls for, with its justification and the L1 whose validators sign it:
//
//   - ConvertSubnetToL1Tx: SubnetToL1Conversion (justification: the subnet id);
//   - RegisterL1ValidatorTx: L1ValidatorRegistration, registered;
//   - SetL1ValidatorWeightTx: L1ValidatorWeight, or, for weight 0, the
//     L1ValidatorRegistration with registered=false and its justification
//     (the conversion's subnet id and index, or the RegisterL1Validator
//     message).
//
// An unknown tx is a NotFound error, a tx of another type InvalidArgument.
func MessageOfTx(ctx context.Context, networkID uint32, src TxSource, txID ids.ID) (*TxMessage, error) {
	tx, err := src.PTx(ctx, txID)
	if errors.Is(err, derrors.NotFound) {
		return nil, derrors.Missing("P-chain transaction %s not found among the indexed transactions", txID)
	}
	if err != nil {
		return nil, err
	}
	switch u := tx.Unsigned.(type) {
	case *txs.ConvertSubnetToL1Tx:
		return conversionMessage(networkID, u)
	case *txs.RegisterL1ValidatorTx:
		reg, err := registerMessageOf(u.Message)
		if err != nil {
			return nil, fmt.Errorf("warpagg: RegisterL1ValidatorTx %s: %w", txID, err)
		}
		l1msg, err := message.NewL1ValidatorRegistration(reg.ValidationID(), true)
		if err != nil {
			return nil, err
		}
		msg, err := pChainMessage(networkID, l1msg.Bytes())
		if err != nil {
			return nil, err
		}
		return &TxMessage{Message: msg, SubnetID: reg.SubnetID}, nil
	case *txs.SetL1ValidatorWeightTx:
		return weightMessage(ctx, networkID, src, txID, u)
	}
	return nil, invalid("transaction %s is a %T, which carries no L1 message; messages are aggregated for ConvertSubnetToL1Tx, RegisterL1ValidatorTx and SetL1ValidatorWeightTx",
		txID, tx.Unsigned)
}

func conversionMessage(networkID uint32, u *txs.ConvertSubnetToL1Tx) (*TxMessage, error) {
	data := message.SubnetToL1ConversionData{
		SubnetID:       u.Subnet,
		ManagerChainID: u.ChainID,
		ManagerAddress: u.Address,
		Validators:     make([]message.SubnetToL1ConversionValidatorData, len(u.Validators)),
	}
	for i, v := range u.Validators {
		data.Validators[i] = message.SubnetToL1ConversionValidatorData{
			NodeID:       v.NodeID,
			BLSPublicKey: v.Signer.PublicKey,
			Weight:       v.Weight,
		}
	}
	conversionID, err := message.SubnetToL1ConversionID(data)
	if err != nil {
		return nil, fmt.Errorf("warpagg: conversion id: %w", err)
	}
	conv, err := message.NewSubnetToL1Conversion(conversionID)
	if err != nil {
		return nil, err
	}
	msg, err := pChainMessage(networkID, conv.Bytes())
	if err != nil {
		return nil, err
	}
	return &TxMessage{Message: msg, Justification: u.Subnet[:], SubnetID: u.Subnet}, nil
}

// registerMessageOf returns the RegisterL1Validator message inside the
// signed warp message of a RegisterL1ValidatorTx.
func registerMessageOf(signed []byte) (*message.RegisterL1Validator, error) {
	call, err := addressedCallOf(signed)
	if err != nil {
		return nil, err
	}
	return message.ParseRegisterL1Validator(call.Payload)
}

func addressedCallOf(signed []byte) (*payload.AddressedCall, error) {
	msg, err := warp.ParseMessage(signed)
	if err != nil {
		return nil, err
	}
	return payload.ParseAddressedCall(msg.Payload)
}

func weightMessage(ctx context.Context, networkID uint32, src TxSource, txID ids.ID, u *txs.SetL1ValidatorWeightTx) (*TxMessage, error) {
	call, err := addressedCallOf(u.Message)
	if err != nil {
		return nil, fmt.Errorf("warpagg: SetL1ValidatorWeightTx %s: %w", txID, err)
	}
	w, err := message.ParseL1ValidatorWeight(call.Payload)
	if err != nil {
		return nil, fmt.Errorf("warpagg: SetL1ValidatorWeightTx %s: %w", txID, err)
	}
	subnetID, addedTxID, err := src.L1ValidatorOrigin(ctx, w.ValidationID)
	if errors.Is(err, derrors.NotFound) {
		return nil, derrors.Missing("the L1 validation %s that transaction %s weighs is not indexed yet", w.ValidationID, txID)
	}
	if err != nil {
		return nil, err
	}
	if w.Weight != 0 {
		l1msg, err := message.NewL1ValidatorWeight(w.ValidationID, w.Nonce, w.Weight)
		if err != nil {
			return nil, err
		}
		msg, err := pChainMessage(networkID, l1msg.Bytes())
		if err != nil {
			return nil, err
		}
		return &TxMessage{Message: msg, SubnetID: subnetID}, nil
	}

	// Weight 0 removed the validator: what the L1 needs is the attestation
	// that the validation is not registered and never will be.
	justification, err := removalJustification(ctx, src, w.ValidationID, subnetID, addedTxID)
	if err != nil {
		return nil, err
	}
	l1msg, err := message.NewL1ValidatorRegistration(w.ValidationID, false)
	if err != nil {
		return nil, err
	}
	msg, err := pChainMessage(networkID, l1msg.Bytes())
	if err != nil {
		return nil, err
	}
	return &TxMessage{Message: msg, Justification: justification, SubnetID: subnetID}, nil
}

// removalJustification builds the L1ValidatorRegistrationJustification of
// the validation validationID from the tx that added it.
func removalJustification(ctx context.Context, src TxSource, validationID, subnetID, addedTxID ids.ID) ([]byte, error) {
	added, err := src.PTx(ctx, addedTxID)
	if err != nil {
		return nil, fmt.Errorf("warpagg: the tx %s that added validation %s: %w", addedTxID, validationID, err)
	}
	var j pvmpb.L1ValidatorRegistrationJustification
	switch u := added.Unsigned.(type) {
	case *txs.ConvertSubnetToL1Tx:
		index := -1
		for i := range u.Validators {
			if i <= math.MaxUint32 && subnetID.Append(uint32(i)) == validationID {
				index = i
				break
			}
		}
		if index < 0 {
			return nil, fmt.Errorf("warpagg: validation %s is not one of ConvertSubnetToL1Tx %s's validators", validationID, addedTxID)
		}
		j.Preimage = &pvmpb.L1ValidatorRegistrationJustification_ConvertSubnetToL1TxData{
			ConvertSubnetToL1TxData: &pvmpb.SubnetIDIndex{SubnetId: subnetID[:], Index: uint32(index)},
		}
	case *txs.RegisterL1ValidatorTx:
		call, err := addressedCallOf(u.Message)
		if err != nil {
			return nil, fmt.Errorf("warpagg: RegisterL1ValidatorTx %s: %w", addedTxID, err)
		}
		j.Preimage = &pvmpb.L1ValidatorRegistrationJustification_RegisterL1ValidatorMessage{RegisterL1ValidatorMessage: call.Payload}
	default:
		return nil, fmt.Errorf("warpagg: validation %s was added by a %T", validationID, added.Unsigned)
	}
	b, err := proto.Marshal(&j)
	if err != nil {
		return nil, fmt.Errorf("warpagg: justification: %w", err)
	}
	return b, nil
}
