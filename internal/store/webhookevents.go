package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
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
	// filter is a Bloom filter of the watched addresses: most of a
	// block's parties are watched by none, and a miss here costs no map
	// lookup.
	filter []uint64
}

// filterBits is the Bloom filter's size: 2^20 bits (128 KiB), about 3%
// false positives at 100,000 addresses.
const filterBits = 1 << 20

// filterHashes are an address's two bits. Addresses are hashes (or
// chosen by their owner: a collision costs only a map lookup).
func filterHashes(a *common.Address) (uint64, uint64) {
	return binary.LittleEndian.Uint64(a[0:8]) % filterBits, binary.LittleEndian.Uint64(a[12:20]) % filterBits
}

func (ix *watchIndex) mayWatch(a *common.Address) bool {
	h1, h2 := filterHashes(a)
	return ix.filter[h1/64]&(1<<(h1%64)) != 0 && ix.filter[h2/64]&(1<<(h2%64)) != 0
}

// setIndex replaces the index's webhooks and addresses.
func (ix *watchIndex) setIndex(hooks []watchHook, byAddr map[watchKey][]int32) {
	ix.hooks, ix.byAddr = hooks, byAddr
	ix.filter = make([]uint64, filterBits/64)
	for k := range byAddr {
		h1, h2 := filterHashes(&k.addr)
		ix.filter[h1/64] |= 1 << (h1 % 64)
		ix.filter[h2/64] |= 1 << (h2 % 64)
	}
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
	ix.setIndex(hooks, byAddr)
	ix.version, ix.loaded = version, true
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
	var seen map[webhookMatch]bool
	sec := b.Timestamp.Unix()
	add := func(addr common.Address, tx int, internalOnly bool) {
		if !ix.mayWatch(&addr) {
			return
		}
		for _, h := range ix.byAddr[watchKey{cid, addr}] {
			hk := &ix.hooks[h]
			if sec < hk.created || (internalOnly && !hk.internal) {
				continue
			}
			m := webhookMatch{h, tx}
			if seen == nil {
				seen = map[webhookMatch]bool{}
			}
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	watches := func(a *common.Address) bool {
		return ix.mayWatch(a) && len(ix.byAddr[watchKey{cid, *a}]) > 0
	}
	var byHash map[common.Hash]int
	lookups := 0
	txOf := func(h common.Hash) (int, bool) {
		// Matches are rare: a few scans cost less than the map.
		if lookups++; lookups <= 8 {
			for i := range b.Txs {
				if b.Txs[i].Hash == h {
					return i, true
				}
			}
			return 0, false
		}
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
		if !watches(&tr.From) && !watches(&tr.To) {
			continue
		}
		if i, ok := txOf(tr.TxHash); ok {
			add(tr.From, i, false)
			add(tr.To, i, false)
		}
	}
	for j := range b.InternalTxs {
		it := &b.InternalTxs[j]
		if !watches(&it.From) && !watches(&it.To) {
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

// ApplyWebhookEvents writes the batch's address_activity events.
func (t *EVMTx) ApplyWebhookEvents(ctx context.Context, blocks []*internal.EVMBlockData) error {
	tx, cid := t.db, t.cid
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
	return encodeCanonical(e)
}

// encodeCanonical encodes v, whose struct fields are in the order of
// their names, without HTML escapes: its canonical form.
func encodeCanonical(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
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

// canonicalJSON encodes v as RFC 8785 (JCS) would for avaindex's
// payloads: object keys sorted, no insignificant space, no HTML escapes.
// The hosted service signs the canonical form; a receiver that re-
// canonicalizes the parsed body gets these very bytes.
func canonicalJSON(v any) ([]byte, error) {
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
	return encodeCanonical(generic)
}
