package webhookevents

import (
	"encoding/hex"
	"math/big"
	"strconv"
	"strings"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// renderer renders a block's events in the reference's
// WebhookAddressActivityResponse shape.
type renderer struct {
	b          *internal.EVMBlockData
	chainID    string
	cumulative []uint64
	tokens     map[common.Address]*internal.EVMContract
}

func newRenderer(b *internal.EVMBlockData, cid uint64) *renderer {
	r := &renderer{b: b, chainID: strconv.FormatUint(cid, 10), cumulative: make([]uint64, len(b.Txs)),
		tokens: map[common.Address]*internal.EVMContract{}}
	var sum uint64
	for i := range b.Txs {
		sum += b.Txs[i].GasUsed
		r.cumulative[i] = sum
	}
	for _, list := range [][]internal.EVMContract{b.Seen, b.Contracts} {
		for i := range list {
			if list[i].Name != "" || list[i].Symbol != "" {
				r.tokens[list[i].Address] = &list[i]
			}
		}
	}
	return r
}

// The wire types' fields are in the byte order of their JSON names, so
// that encoding/json writes the canonical form (RFC 8785) directly.

type wireTransfer struct {
	BlockTimestamp  int64      `json:"blockTimestamp"`
	ERC1155Token    *wireToken `json:"erc1155Token,omitempty"`
	ERC20Token      *wireToken `json:"erc20Token,omitempty"`
	ERC721Token     *wireToken `json:"erc721Token,omitempty"`
	From            string     `json:"from"`
	LogIndex        uint32     `json:"logIndex"`
	To              string     `json:"to"`
	TokenID         string     `json:"tokenId,omitempty"`
	TransactionHash string     `json:"transactionHash"`
	Type            string     `json:"type"`
	Value           string     `json:"value"`
}

type wireToken struct {
	Address           string `json:"address"`
	Decimals          int    `json:"decimals"`
	Name              string `json:"name"`
	Symbol            string `json:"symbol"`
	ValueWithDecimals string `json:"valueWithDecimals"`
}

type wireInternalTx struct {
	From            string `json:"from"`
	GasLimit        string `json:"gasLimit"`
	GasUsed         string `json:"gasUsed"`
	InternalTxType  string `json:"internalTxType"`
	To              string `json:"to"`
	TransactionHash string `json:"transactionHash"`
	Value           string `json:"value"`
}

type wireLog struct {
	Address          string `json:"address"`
	Data             string `json:"data"`
	LogIndex         uint32 `json:"logIndex"`
	Removed          bool   `json:"removed"`
	Topic0           string `json:"topic0"`
	Topic1           string `json:"topic1,omitempty"`
	Topic2           string `json:"topic2,omitempty"`
	Topic3           string `json:"topic3,omitempty"`
	TransactionIndex uint32 `json:"transactionIndex"`
}

type wireTransaction struct {
	BlockHash                string           `json:"blockHash"`
	BlockNumber              string           `json:"blockNumber"`
	BlockTimestamp           int64            `json:"blockTimestamp"`
	ChainID                  string           `json:"chainId"`
	ContractAddress          string           `json:"contractAddress,omitempty"`
	ERC1155Transfers         []wireTransfer   `json:"erc1155Transfers"`
	ERC20Transfers           []wireTransfer   `json:"erc20Transfers"`
	ERC721Transfers          []wireTransfer   `json:"erc721Transfers"`
	From                     string           `json:"from"`
	Gas                      string           `json:"gas"`
	GasPrice                 string           `json:"gasPrice"`
	Input                    string           `json:"input"`
	InternalTransactions     []wireInternalTx `json:"internalTransactions,omitempty"`
	MaxFeePerGas             string           `json:"maxFeePerGas"`
	MaxPriorityFeePerGas     string           `json:"maxPriorityFeePerGas"`
	Nonce                    string           `json:"nonce"`
	ReceiptCumulativeGasUsed string           `json:"receiptCumulativeGasUsed"`
	ReceiptEffectiveGasPrice string           `json:"receiptEffectiveGasPrice"`
	ReceiptGasUsed           string           `json:"receiptGasUsed"`
	ReceiptRoot              string           `json:"receiptRoot"`
	To                       string           `json:"to"`
	TransactionIndex         uint32           `json:"transactionIndex"`
	TxHash                   string           `json:"txHash"`
	TxStatus                 string           `json:"txStatus"`
	Type                     uint8            `json:"type"`
	Value                    string           `json:"value"`
}

type wireEvent struct {
	Event struct {
		Logs        []wireLog       `json:"logs,omitempty"`
		Transaction wireTransaction `json:"transaction"`
	} `json:"event"`
	EventType string `json:"eventType"`
	MessageID string `json:"messageId"`
	WebhookID string `json:"webhookId"`
}

func decString(b *big.Int) string {
	if b == nil {
		return "0"
	}
	return b.String()
}

func (r *renderer) payload(h *internal.AddressWatch, msgID string, i int) ([]byte, error) {
	b, t := r.b, &r.b.Txs[i]
	var e wireEvent
	e.WebhookID, e.EventType, e.MessageID = h.ID, internal.EventAddressActivity, msgID
	to := ""
	if t.To != nil {
		to = t.To.Hex()
	}
	w := wireTransaction{
		BlockHash: b.Hash.Hex(), BlockNumber: strconv.FormatUint(b.Number, 10), From: t.From.Hex(),
		Gas: strconv.FormatUint(t.GasLimit, 10), GasPrice: decString(t.GasPrice),
		MaxFeePerGas: decString(t.MaxFeePerGas), MaxPriorityFeePerGas: decString(t.MaxPriorityFeePerGas),
		TxHash: t.Hash.Hex(), TxStatus: strconv.Itoa(int(t.Status)), Input: "0x" + hex.EncodeToString(t.Input),
		Nonce: strconv.FormatUint(t.Nonce, 10), To: to, TransactionIndex: t.Index, Value: decString(t.Value), Type: t.Type,
		ChainID: r.chainID, ReceiptCumulativeGasUsed: strconv.FormatUint(r.cumulative[i], 10),
		ReceiptGasUsed: strconv.FormatUint(t.GasUsed, 10), ReceiptEffectiveGasPrice: decString(t.GasPrice),
		// Receipts since Byzantium carry a status, not a state root.
		ReceiptRoot: "", BlockTimestamp: b.Timestamp.Unix(),
		ERC20Transfers: []wireTransfer{}, ERC721Transfers: []wireTransfer{}, ERC1155Transfers: []wireTransfer{},
	}
	if t.ContractAddress != nil {
		w.ContractAddress = t.ContractAddress.Hex()
	}
	for j := range b.Transfers {
		tr := &b.Transfers[j]
		if tr.TxHash != t.Hash {
			continue
		}
		wt := wireTransfer{TransactionHash: tr.TxHash.Hex(), Type: strings.ReplaceAll(string(tr.Type), "-", ""),
			From: tr.From.Hex(), To: tr.To.Hex(), Value: decString(tr.Value), BlockTimestamp: b.Timestamp.Unix(), LogIndex: tr.LogIndex}
		if tr.TokenID != nil {
			wt.TokenID = tr.TokenID.String()
		}
		tok := r.token(tr)
		switch tr.Type {
		case internal.ERC20:
			wt.ERC20Token = tok
			w.ERC20Transfers = append(w.ERC20Transfers, wt)
		case internal.ERC721:
			wt.ERC721Token = tok
			w.ERC721Transfers = append(w.ERC721Transfers, wt)
		case internal.ERC1155:
			wt.ERC1155Token = tok
			w.ERC1155Transfers = append(w.ERC1155Transfers, wt)
		}
	}
	if h.InternalTxs {
		w.InternalTransactions = []wireInternalTx{}
		for j := range b.InternalTxs {
			it := &b.InternalTxs[j]
			if it.TxHash != t.Hash {
				continue
			}
			w.InternalTransactions = append(w.InternalTransactions, wireInternalTx{From: it.From.Hex(), To: it.To.Hex(),
				InternalTxType: strings.ToLower(it.CallType), Value: decString(it.Value), GasUsed: strconv.FormatUint(it.GasUsed, 10),
				GasLimit: strconv.FormatUint(it.Gas, 10), TransactionHash: it.TxHash.Hex()})
		}
	}
	e.Event.Transaction = w
	if h.Logs {
		e.Event.Logs = []wireLog{}
		for j := range b.Logs {
			l := &b.Logs[j]
			if l.TxIndex != t.Index || len(l.Topics) == 0 || (h.Signatures != nil && !h.Signatures[l.Topics[0]]) {
				continue
			}
			wl := wireLog{Address: l.Address.Hex(), Topic0: l.Topics[0].Hex(), Data: "0x" + hex.EncodeToString(l.Data),
				TransactionIndex: l.TxIndex, LogIndex: l.Index}
			for k, dst := range []*string{&wl.Topic1, &wl.Topic2, &wl.Topic3} {
				if k+1 < len(l.Topics) {
					*dst = l.Topics[k+1].Hex()
				}
			}
			e.Event.Logs = append(e.Event.Logs, wl)
		}
	}
	return internal.EncodeCanonical(e)
}

// token is a transfer's token as the block tells it (its contract
// deployed or first seen in the block); nil when it does not.
func (r *renderer) token(tr *internal.EVMTransfer) *wireToken {
	c, ok := r.tokens[tr.Token]
	if !ok {
		return nil
	}
	t := &wireToken{Address: tr.Token.Hex(), Name: c.Name, Symbol: c.Symbol, ValueWithDecimals: decString(tr.Value)}
	if c.Decimals != nil {
		t.Decimals = int(*c.Decimals)
		t.ValueWithDecimals = withDecimals(tr.Value, int(*c.Decimals))
	}
	return t
}

func withDecimals(v *big.Int, decimals int) string {
	s := decString(v)
	if decimals <= 0 {
		return s
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for len(s) <= decimals {
		s = "0" + s
	}
	out := s[:len(s)-decimals] + "." + s[len(s)-decimals:]
	out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	if neg {
		out = "-" + out
	}
	return out
}
