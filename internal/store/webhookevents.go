package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
)

// The address_activity applier: it matches each batch of an EVM chain's
// blocks against the active webhooks' addresses, held in memory
// (watchIndex), and writes an event per matched transaction and webhook
// to the outbox, in the batch's transaction.

// watchHook is an active address_activity webhook, as matched.
type watchHook struct {
	id       string
	created  int64 // unix seconds
	logs     bool
	internal bool
	sigs     map[common.Hash]bool // nil: every tx
}

type watchKey struct {
	chain int64
	addr  common.Address
}

// watchIndex is the in-memory copy of the watched addresses, reloaded
// when webhook_state's version moves (any change, on any instance).
type watchIndex struct {
	mu      sync.Mutex
	version int64
	loaded  bool
	hooks   []watchHook
	byAddr  map[watchKey][]int32
}

type watchIndexKey struct{}

// webhookIndex returns the database's watch index, current as of tx.
func webhookIndex(ctx context.Context, tx *database.DB) (*watchIndex, error) {
	ix := tx.Value(watchIndexKey{}, func() any { return new(watchIndex) }).(*watchIndex)
	var version int64
	if err := tx.QueryRow(ctx, "SELECT version FROM webhook_state WHERE id = 1").Scan(&version); err != nil {
		return nil, fmt.Errorf("the webhooks' version: %w", err)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.loaded && ix.version == version {
		return ix, nil
	}
	hooks, byAddr, err := loadWatchIndex(ctx, tx)
	if err != nil {
		return nil, err
	}
	ix.hooks, ix.byAddr, ix.version, ix.loaded = hooks, byAddr, version, true
	return ix, nil
}

func loadWatchIndex(ctx context.Context, tx *database.DB) ([]watchHook, map[watchKey][]int32, error) {
	var hooks []watchHook
	chains := map[string]int64{}
	pos := map[string]int32{}
	err := tx.RunQuery(ctx, `SELECT id, chain_id, created_at, include_logs, include_internal_txs, event_signatures
		FROM webhooks WHERE status = 'active' AND event_type = ?`, func(rows *sql.Rows) error {
		var (
			h            watchHook
			cid, created int64
			logs, itxs   int
			sigs         string
		)
		if err := rows.Scan(&h.id, &cid, &created, &logs, &itxs, &sigs); err != nil {
			return err
		}
		var list []common.Hash
		if err := json.Unmarshal([]byte(sigs), &list); err != nil {
			return fmt.Errorf("webhook %s's event signatures: %w", h.id, err)
		}
		if len(list) > 0 {
			h.sigs = make(map[common.Hash]bool, len(list))
			for _, s := range list {
				h.sigs[s] = true
			}
		}
		h.created, h.logs, h.internal = created/1000, logs == 1, itxs == 1
		chains[h.id], pos[h.id] = cid, int32(len(hooks))
		hooks = append(hooks, h)
		return nil
	}, EventAddressActivity)
	if err != nil {
		return nil, nil, err
	}
	byAddr := map[watchKey][]int32{}
	err = tx.RunQuery(ctx, `SELECT a.webhook_id, a.address FROM webhook_addresses a JOIN webhooks w ON w.id = a.webhook_id
		WHERE w.status = 'active' AND w.event_type = ?`, func(rows *sql.Rows) error {
		var id, addr string
		if err := rows.Scan(&id, &addr); err != nil {
			return err
		}
		i, ok := pos[id]
		if !ok || !common.IsHexAddress(addr) {
			return nil // activated meanwhile, or not an address: matches nothing
		}
		k := watchKey{chains[id], common.HexToAddress(addr)}
		byAddr[k] = append(byAddr[k], i)
		return nil
	}, EventAddressActivity)
	return hooks, byAddr, err
}

// webhookMatch is one event: a tx of a block for a webhook.
type webhookMatch struct {
	hook int32
	tx   int // index in the block's Txs
}

// match returns the block's events, by tx then webhook, each once.
func (ix *watchIndex) match(cid int64, b *internal.EVMBlockData) []webhookMatch {
	if len(ix.byAddr) == 0 {
		return nil
	}
	var out []webhookMatch
	seen := map[webhookMatch]bool{}
	sec := b.Timestamp.Unix()
	add := func(addr common.Address, tx int, internalOnly bool) {
		for _, h := range ix.byAddr[watchKey{cid, addr}] {
			hk := &ix.hooks[h]
			if sec < hk.created || (internalOnly && !hk.internal) {
				continue
			}
			m := webhookMatch{h, tx}
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	var byHash map[common.Hash]int
	txOf := func(h common.Hash) (int, bool) {
		if byHash == nil {
			byHash = make(map[common.Hash]int, len(b.Txs))
			for i := range b.Txs {
				byHash[b.Txs[i].Hash] = i
			}
		}
		i, ok := byHash[h]
		return i, ok
	}
	for i := range b.Txs {
		t := &b.Txs[i]
		add(t.From, i, false)
		if t.To != nil {
			add(*t.To, i, false)
		}
	}
	for j := range b.Transfers {
		tr := &b.Transfers[j]
		if len(ix.byAddr[watchKey{cid, tr.From}]) == 0 && len(ix.byAddr[watchKey{cid, tr.To}]) == 0 {
			continue
		}
		if i, ok := txOf(tr.TxHash); ok {
			add(tr.From, i, false)
			add(tr.To, i, false)
		}
	}
	for j := range b.InternalTxs {
		it := &b.InternalTxs[j]
		if len(ix.byAddr[watchKey{cid, it.From}]) == 0 && len(ix.byAddr[watchKey{cid, it.To}]) == 0 {
			continue
		}
		if i, ok := txOf(it.TxHash); ok {
			add(it.From, i, true)
			add(it.To, i, true)
		}
	}
	// eventSignatures: only the txs that emitted one of them.
	kept := out[:0]
	for _, m := range out {
		if sigs := ix.hooks[m.hook].sigs; sigs != nil && !emitted(b, uint32(b.Txs[m.tx].Index), sigs) {
			continue
		}
		kept = append(kept, m)
	}
	return kept
}

func emitted(b *internal.EVMBlockData, txIndex uint32, sigs map[common.Hash]bool) bool {
	for i := range b.Logs {
		l := &b.Logs[i]
		if l.TxIndex == txIndex && len(l.Topics) > 0 && sigs[l.Topics[0]] {
			return true
		}
	}
	return false
}

// applyWebhookEvents writes the batch's address_activity events.
func applyWebhookEvents(ctx context.Context, tx *database.DB, cid int64, blocks []*internal.EVMBlockData) error {
	ix, err := webhookIndex(ctx, tx)
	if err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if len(ix.byAddr) == 0 {
		return nil
	}
	now := time.Now().UnixMilli()
	var rows [][]any
	for _, b := range blocks {
		ms := ix.match(cid, b)
		if len(ms) == 0 {
			continue
		}
		r := newEventRenderer(b, cid)
		for _, m := range ms {
			h := &ix.hooks[m.hook]
			t := &b.Txs[m.tx]
			msgID := messageID(h.id, cid, b.Hash, t.Hash)
			payload, err := r.payload(h, msgID, m.tx)
			if err != nil {
				return fmt.Errorf("webhook %s, tx %s: %w", h.id, t.Hash, err)
			}
			rows = append(rows, []any{h.id, int64(b.Number), int64(t.Index), msgID, string(payload), now})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	_, err = tx.BulkInsert(ctx, "webhook_outbox", []string{"webhook_id", "block_number", "position", "message_id", "payload", "created_at"},
		rows, onConflictDoNothing)
	return err
}

// messageID is the event's id, a UUID made of what the event is, so that
// a re-applied block makes the same one.
func messageID(webhook string, cid int64, block, tx common.Hash) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s/%d/", webhook, cid)
	h.Write(block[:])
	h.Write(tx[:])
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50 // version 5 (name-based, with SHA-256 here)
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	x := hex.EncodeToString(u[:])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

// eventRenderer renders a block's events in the reference's
// WebhookAddressActivityResponse shape.
type eventRenderer struct {
	b          *internal.EVMBlockData
	chainID    string
	cumulative []uint64
	tokens     map[common.Address]*internal.EVMContract
}

func newEventRenderer(b *internal.EVMBlockData, cid int64) *eventRenderer {
	r := &eventRenderer{b: b, chainID: strconv.FormatInt(cid, 10), cumulative: make([]uint64, len(b.Txs)),
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

type wireTransfer struct {
	TransactionHash string     `json:"transactionHash"`
	Type            string     `json:"type"`
	From            string     `json:"from"`
	To              string     `json:"to"`
	Value           string     `json:"value"`
	TokenID         string     `json:"tokenId,omitempty"`
	BlockTimestamp  int64      `json:"blockTimestamp"`
	LogIndex        uint32     `json:"logIndex"`
	ERC20Token      *wireToken `json:"erc20Token,omitempty"`
	ERC721Token     *wireToken `json:"erc721Token,omitempty"`
	ERC1155Token    *wireToken `json:"erc1155Token,omitempty"`
}

type wireToken struct {
	Address           string `json:"address"`
	Name              string `json:"name"`
	Symbol            string `json:"symbol"`
	Decimals          int    `json:"decimals"`
	ValueWithDecimals string `json:"valueWithDecimals"`
}

type wireInternalTx struct {
	From            string `json:"from"`
	To              string `json:"to"`
	InternalTxType  string `json:"internalTxType"`
	Value           string `json:"value"`
	GasUsed         string `json:"gasUsed"`
	GasLimit        string `json:"gasLimit"`
	TransactionHash string `json:"transactionHash"`
}

type wireLog struct {
	Address          string `json:"address"`
	Topic0           string `json:"topic0"`
	Topic1           string `json:"topic1,omitempty"`
	Topic2           string `json:"topic2,omitempty"`
	Topic3           string `json:"topic3,omitempty"`
	Data             string `json:"data"`
	TransactionIndex uint32 `json:"transactionIndex"`
	LogIndex         uint32 `json:"logIndex"`
	Removed          bool   `json:"removed"`
}

type wireTransaction struct {
	BlockHash                string           `json:"blockHash"`
	BlockNumber              string           `json:"blockNumber"`
	From                     string           `json:"from"`
	Gas                      string           `json:"gas"`
	GasPrice                 string           `json:"gasPrice"`
	MaxFeePerGas             string           `json:"maxFeePerGas"`
	MaxPriorityFeePerGas     string           `json:"maxPriorityFeePerGas"`
	TxHash                   string           `json:"txHash"`
	TxStatus                 string           `json:"txStatus"`
	Input                    string           `json:"input"`
	Nonce                    string           `json:"nonce"`
	To                       string           `json:"to"`
	TransactionIndex         uint32           `json:"transactionIndex"`
	Value                    string           `json:"value"`
	Type                     uint8            `json:"type"`
	ChainID                  string           `json:"chainId"`
	ReceiptCumulativeGasUsed string           `json:"receiptCumulativeGasUsed"`
	ReceiptGasUsed           string           `json:"receiptGasUsed"`
	ReceiptEffectiveGasPrice string           `json:"receiptEffectiveGasPrice"`
	ReceiptRoot              string           `json:"receiptRoot"`
	BlockTimestamp           int64            `json:"blockTimestamp"`
	ContractAddress          string           `json:"contractAddress,omitempty"`
	ERC20Transfers           []wireTransfer   `json:"erc20Transfers"`
	ERC721Transfers          []wireTransfer   `json:"erc721Transfers"`
	ERC1155Transfers         []wireTransfer   `json:"erc1155Transfers"`
	InternalTransactions     []wireInternalTx `json:"internalTransactions,omitempty"`
}

type wireEvent struct {
	WebhookID string `json:"webhookId"`
	EventType string `json:"eventType"`
	MessageID string `json:"messageId"`
	Event     struct {
		Transaction wireTransaction `json:"transaction"`
		Logs        []wireLog       `json:"logs,omitempty"`
	} `json:"event"`
}

func decString(b *big.Int) string {
	if b == nil {
		return "0"
	}
	return b.String()
}

func (r *eventRenderer) payload(h *watchHook, msgID string, i int) ([]byte, error) {
	b, t := r.b, &r.b.Txs[i]
	var e wireEvent
	e.WebhookID, e.EventType, e.MessageID = h.id, EventAddressActivity, msgID
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
	if h.internal {
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
	if h.logs {
		e.Event.Logs = []wireLog{}
		for j := range b.Logs {
			l := &b.Logs[j]
			if l.TxIndex != t.Index || len(l.Topics) == 0 || (h.sigs != nil && !h.sigs[l.Topics[0]]) {
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
	return CanonicalJSON(e)
}

// token is a transfer's token as the block tells it (its contract
// deployed or first seen in the block); nil when it does not.
func (r *eventRenderer) token(tr *internal.EVMTransfer) *wireToken {
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

// CanonicalJSON encodes v as RFC 8785 (JCS) would for avaindex's
// payloads: object keys sorted, no insignificant space, no HTML escapes.
// The hosted service signs the canonical form; a receiver that re-
// canonicalizes the parsed body gets these very bytes.
func CanonicalJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
