package api

import (
	"context"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
)

// The Interchain Messaging tag and its deprecated Teleporter twin: ICM
// messages as the indexed chains' TeleporterMessenger events show them,
// joined across the message's two chains (store.ICMStore).

// ICM message statuses (the schema's discriminator).
const (
	icmPending                   = "pending"
	icmDelivered                 = "delivered"
	icmDeliveredSourceNotIndexed = "delivered_source_not_indexed"
)

// IcmMessage is PendingIcmMessage, DeliveredIcmMessage or
// DeliveredSourceNotIndexedIcmMessage as Status says (and their Teleporter
// twins, which name the contract teleporterContractAddress).
type IcmMessage struct {
	MessageID                 string              `json:"messageId"`
	IcmContractAddress        string              `json:"icmContractAddress,omitempty"`
	TeleporterContractAddress string              `json:"teleporterContractAddress,omitempty"`
	SourceBlockchainID        string              `json:"sourceBlockchainId"`
	DestinationBlockchainID   string              `json:"destinationBlockchainId"`
	SourceEvmChainID          string              `json:"sourceEvmChainId"`
	DestinationEvmChainID     string              `json:"destinationEvmChainId"`
	MessageNonce              string              `json:"messageNonce"`
	From                      string              `json:"from"`
	To                        string              `json:"to"`
	Data                      string              `json:"data,omitempty"`
	MessageExecuted           bool                `json:"messageExecuted"`
	Receipts                  []IcmReceipt        `json:"receipts"`
	ReceiptDelivered          bool                `json:"receiptDelivered"`
	RewardDetails             IcmRewardDetails    `json:"rewardDetails"`
	SourceTransaction         *IcmTransaction     `json:"sourceTransaction,omitempty"`
	DestinationTransaction    *IcmDestTransaction `json:"destinationTransaction,omitempty"`
	Status                    string              `json:"status"`
}

// IcmReceipt is a receipt the message carried (schema IcmReceipt).
type IcmReceipt struct {
	ReceivedMessageNonce string `json:"receivedMessageNonce"`
	RelayerRewardAddress string `json:"relayerRewardAddress"`
}

// IcmRewardDetails is the relayer's fee (schema IcmRewardDetails).
type IcmRewardDetails struct {
	Address  string `json:"address"`
	Name     string `json:"name"`
	Symbol   string `json:"symbol"`
	Decimals int    `json:"decimals"`
	LogoURI  string `json:"logoUri,omitempty"`
	ERCType  string `json:"ercType"`
	Price    *Money `json:"price,omitempty"`
	Value    string `json:"value"`
}

// IcmTransaction is the send (schema IcmSourceTransaction); gasSpent is
// the tx's gas used.
type IcmTransaction struct {
	TxHash    string `json:"txHash"`
	Timestamp int64  `json:"timestamp"`
	GasSpent  string `json:"gasSpent"`
}

// IcmDestTransaction is the delivery (schema IcmDestinationTransaction).
type IcmDestTransaction struct {
	IcmTransaction
	RewardRedeemer   string `json:"rewardRedeemer"`
	DelivererAddress string `json:"delivererAddress"`
}

// ListIcmMessagesResponse is a page of messages (and of Teleporter
// messages).
type ListIcmMessagesResponse struct {
	NextPageToken string        `json:"nextPageToken,omitempty"`
	Messages      []*IcmMessage `json:"messages"`
}

// icmMessageID parses {messageId}: 32 bytes in hex, with or without 0x.
func icmMessageID(r *http.Request) (common.Hash, error) {
	v := r.PathValue("messageId")
	s := strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X")
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != common.HashLength {
		return common.Hash{}, derrors.Invalid("messageId must be a 32-byte hex message id, got %s", got(v))
	}
	return common.BytesToHash(b), nil
}

// optionalBlockchainID is the query parameter name, a blockchain id in cb58
// or as 32 hex bytes; nil when absent.
func optionalBlockchainID(r *http.Request, name string) (*ids.ID, error) {
	v, ok, err := param.QueryValue(r, name)
	if err != nil || !ok {
		return nil, err
	}
	if id, err := ids.FromString(v); err == nil {
		return &id, nil
	}
	s := strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X")
	if b, err := hex.DecodeString(s); err == nil && len(b) == ids.IDLen {
		id := ids.ID(b)
		return &id, nil
	}
	return nil, derrors.Invalid("%s must be a blockchain id in cb58 or as 32 hex-encoded bytes, got %s", name, got(v))
}

func (a *API) getIcmMessage(w http.ResponseWriter, r *http.Request) error {
	return a.getICM(w, r, false)
}

func (a *API) getTeleporterMessage(w http.ResponseWriter, r *http.Request) error {
	return a.getICM(w, r, true)
}

func (a *API) getICM(w http.ResponseWriter, r *http.Request, teleporter bool) error {
	id, err := icmMessageID(r)
	if err != nil {
		return err
	}
	var m *internal.ICMMessage
	if a.evm != nil { // nil: no EVM chain is served
		if m, err = a.evm.ICMMessage(r.Context(), id); err != nil {
			return err
		}
	}
	if m == nil {
		return derrors.Missing("no ICM message %s is indexed", hex.EncodeToString(id[:]))
	}
	out, err := a.icmMessage(r.Context(), m, teleporter)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, out)
	return nil
}

func (a *API) listIcmMessages(w http.ResponseWriter, r *http.Request) error {
	return a.listICM(w, r, "listIcmMessages", false, false)
}

func (a *API) listTeleporterMessages(w http.ResponseWriter, r *http.Request) error {
	return a.listICM(w, r, "listTeleporterMessages", true, false)
}

func (a *API) listIcmMessagesByAddress(w http.ResponseWriter, r *http.Request) error {
	return a.listICM(w, r, "listIcmMessagesByAddress", false, true)
}

func (a *API) listTeleporterMessagesByAddress(w http.ResponseWriter, r *http.Request) error {
	return a.listICM(w, r, "listTeleporterMessagesByAddress", true, true)
}

// listICM serves the four lists: byAddress reads {address}, the others
// their filters. A network other than the indexed one lists nothing.
func (a *API) listICM(w http.ResponseWriter, r *http.Request, op string, teleporter, byAddress bool) error {
	chains, err := a.networkChains(r)
	if err != nil {
		return err
	}
	var f internal.ICMFilter
	if byAddress {
		addr, err := EVMAddress(r, "address")
		if err != nil {
			return err
		}
		f.Address = &addr
	} else {
		if f.SourceBlockchainID, err = optionalBlockchainID(r, "sourceBlockchainId"); err != nil {
			return err
		}
		if f.DestinationBlockchainID, err = optionalBlockchainID(r, "destinationBlockchainId"); err != nil {
			return err
		}
		if f.BlockchainID, err = optionalBlockchainID(r, "blockchainId"); err != nil {
			return err
		}
		if f.From, err = OptionalEVMAddress(r, "from"); err != nil {
			return err
		}
		if f.To, err = OptionalEVMAddress(r, "to"); err != nil {
			return err
		}
	}
	network, _, _ := param.QueryValue(r, "network")
	spec := listSpec{Op: op, Filters: []string{optText(f.SourceBlockchainID), optText(f.DestinationBlockchainID),
		optText(f.BlockchainID), optAddrText(f.From), optAddrText(f.To), optAddrText(f.Address), network}}
	// Another network, or no EVM chain served: nothing to list.
	other := chains == nil || a.evm == nil
	items, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *internal.ICMCursor, limit int) ([]*internal.ICMMessage, error) {
			if other {
				return nil, nil
			}
			return a.evm.ICMMessages(ctx, f, after, limit)
		},
		func(m *internal.ICMMessage) internal.ICMCursor {
			return internal.ICMCursor{Time: icmTime(m), ID: m.MessageID}
		})
	if err != nil {
		return err
	}
	resp := ListIcmMessagesResponse{NextPageToken: next, Messages: make([]*IcmMessage, 0, len(items))}
	for _, m := range items {
		out, err := a.icmMessage(r.Context(), m, teleporter)
		if err != nil {
			return err
		}
		resp.Messages = append(resp.Messages, out)
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// icmTime is the message's place in the lists: the block time of its
// first indexed send or delivery (store.ICMMessages' order).
func icmTime(m *internal.ICMMessage) uint64 {
	switch {
	case m.Source != nil && m.Destination != nil:
		return min(m.Source.Timestamp, m.Destination.Timestamp)
	case m.Source != nil:
		return m.Source.Timestamp
	case m.Destination != nil:
		return m.Destination.Timestamp
	}
	return 0
}

func optText(id *ids.ID) string {
	if id == nil {
		return ""
	}
	return id.String()
}

func optAddrText(a *common.Address) string {
	if a == nil {
		return ""
	}
	return strings.ToLower(a.Hex())
}

// evmChainIDOf is the EVM chain id of a blockchain: the indexed end's, or
// the registry's; "" when the chain is not known here.
func (a *API) evmChainIDOf(end *internal.ICMTxEnd, blockchain ids.ID) string {
	if end != nil {
		return strconv.FormatUint(end.ChainID, 10)
	}
	if a.chains != nil {
		if c, ok := a.chains.ByBlockchainID(blockchain); ok {
			return strconv.FormatUint(c.ChainID, 10)
		}
	}
	return ""
}

// icmMessage renders m in the ICM (or, teleporter, the Teleporter) shape.
func (a *API) icmMessage(ctx context.Context, m *internal.ICMMessage, teleporter bool) (*IcmMessage, error) {
	out := &IcmMessage{
		MessageID:               hex.EncodeToString(m.MessageID[:]),
		SourceBlockchainID:      m.SourceBlockchainID.String(),
		DestinationBlockchainID: m.DestinationBlockchainID.String(),
		SourceEvmChainID:        a.evmChainIDOf(m.Source, m.SourceBlockchainID),
		DestinationEvmChainID:   a.evmChainIDOf(m.Destination, m.DestinationBlockchainID),
		MessageNonce:            m.Nonce.String(),
		From:                    m.From.Hex(),
		To:                      m.To.Hex(),
		MessageExecuted:         m.Executed,
		Receipts:                make([]IcmReceipt, 0, len(m.Receipts)),
		ReceiptDelivered:        m.ReceiptDelivered,
	}
	if teleporter {
		out.TeleporterContractAddress = m.Messenger.Hex()
	} else {
		out.IcmContractAddress = m.Messenger.Hex()
	}
	if len(m.Data) > 0 {
		out.Data = "0x" + hex.EncodeToString(m.Data)
	}
	for _, rc := range m.Receipts {
		out.Receipts = append(out.Receipts, IcmReceipt{ReceivedMessageNonce: rc.ReceivedMessageNonce.String(),
			RelayerRewardAddress: rc.RelayerRewardAddress.Hex()})
	}
	// The fee is known from the send; a delivery alone does not name it.
	out.RewardDetails = IcmRewardDetails{Address: m.FeeToken.Hex(), ERCType: string(internal.ERC20), Value: "0"}
	if m.FeeAmount != nil {
		out.RewardDetails.Value = m.FeeAmount.String()
	}
	if m.Source != nil && m.FeeToken != (common.Address{}) {
		v, err := a.contracts(m.Source.ChainID).get(ctx, m.FeeToken)
		if err != nil {
			return nil, err
		}
		out.RewardDetails.Name, out.RewardDetails.Symbol, out.RewardDetails.LogoURI = v.name(), v.symbol(), v.curated.LogoURI
		if d := v.decimals(); d != nil {
			out.RewardDetails.Decimals = *d
		}
	}
	if s := m.Source; s != nil {
		out.SourceTransaction = &IcmTransaction{TxHash: s.TxHash.Hex(), Timestamp: int64(s.Timestamp), GasSpent: strconv.FormatUint(s.GasUsed, 10)}
	}
	if d := m.Destination; d != nil {
		out.DestinationTransaction = &IcmDestTransaction{
			IcmTransaction:   IcmTransaction{TxHash: d.TxHash.Hex(), Timestamp: int64(d.Timestamp), GasSpent: strconv.FormatUint(d.GasUsed, 10)},
			RewardRedeemer:   d.RewardRedeemer.Hex(),
			DelivererAddress: d.Deliverer.Hex(),
		}
	}
	switch {
	case m.Destination == nil:
		out.Status = icmPending
	case m.Source == nil:
		out.Status = icmDeliveredSourceNotIndexed
	default:
		out.Status = icmDelivered
	}
	return out, nil
}
