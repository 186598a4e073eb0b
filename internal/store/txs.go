package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
)

// TxStore reads single transactions of the three chains, where they were
// accepted and the UTXOs they emitted and consumed: what the Data API
// shows of one transaction.
type TxStore interface {
	// PTx, XTx and CTx return the stored tx id of the P-chain, the X-chain
	// (a block's tx or a pre-Cortina DAG tx) or the C-chain's atomic txs;
	// derrors.NotFound when it is not stored.
	PTx(ctx context.Context, id ids.ID) (*TxRecord, error)
	XTx(ctx context.Context, id ids.ID) (*TxRecord, error)
	CTx(ctx context.Context, id ids.ID) (*TxRecord, error)
	// TxUTXOs returns the UTXOs the tx txID of chain emitted and consumed,
	// as far as they are indexed; none for a tx that is not stored.
	TxUTXOs(ctx context.Context, chain internal.Chain, txID ids.ID) (*TxUTXOs, error)
	// TxsUTXOs is TxUTXOs of each of txIDs, in three queries whatever
	// their number (a page of txs renders without a query per tx); each
	// id has an entry, empty for a tx that is not stored.
	TxsUTXOs(ctx context.Context, chain internal.Chain, txIDs []ids.ID) (map[ids.ID]*TxUTXOs, error)
	// L1ValidatorEvents returns, for each L1 validator the P-chain tx txID
	// changed, that validator's events up to and including txID's, in
	// chain order; empty for a tx that changed none.
	L1ValidatorEvents(ctx context.Context, txID ids.ID) (map[ids.ID][]internal.L1Event, error)
}

// TxRecord is a stored transaction and where the chain accepted it.
type TxRecord struct {
	ID ids.ID
	// Type is the VM's tx type name, e.g. "BaseTx".
	Type  string
	Bytes []byte
	// Height and Index are the accepting block's height and the tx's
	// position in it (for C-chain atomic txs, in the block's atomic txs).
	// For an X-chain DAG tx (DAG true), Height is 0 and Index its position
	// in the node's X/tx index.
	Height uint64
	Index  int
	DAG    bool
	// BlockID is the accepting block's id (the EVM block hash on the
	// C-chain); ids.Empty for a DAG tx.
	BlockID ids.ID
	// Timestamp is the block's time (zero for pre-Banff P-chain blocks),
	// or a DAG tx's acceptance time.
	Timestamp time.Time
}

// TxUTXOs are the UTXOs a tx emitted and consumed.
type TxUTXOs struct {
	// Emitted are its outputs in output index order: regular, stake and
	// exported outputs, and the reward and L1 refund UTXOs a P-chain tx
	// creates.
	Emitted []*UTXORow
	// Consumed are the UTXOs it spent, of its own chain and imported from
	// others', ordered by id.
	Consumed []*UTXORow
}

// UTXORow is a UTXO as the store keeps it, on any chain.
type UTXORow struct {
	// Chain is the chain that created it, whose encoding Bytes is in.
	Chain       internal.Chain
	ID          ids.ID
	TxID        ids.ID
	OutputIndex uint32
	// Kind is the creating chain's kind (internal.PKind*, xchain.Kind*; C-chain
	// UTXOs are all "exported"), "" for an imported UTXO whose export is
	// not indexed.
	Kind string
	// PeerChain is an exported UTXO's destination chain.
	PeerChain ids.ID
	// SourceChain is, for an imported UTXO, the chain it came from.
	SourceChain ids.ID
	AssetID     ids.ID
	Amount      uint64
	// Bytes is the avax.UTXO in the creating chain's encoding; nil for an
	// imported UTXO whose export is not indexed.
	Bytes []byte
	// Created* are the creating tx and its block's height and time (unix
	// seconds); CreatedKnown is false for an imported UTXO whose export is
	// not indexed.
	CreatedTxID   ids.ID
	CreatedHeight uint64
	CreatedTime   int64
	CreatedKnown  bool
	// Staked is true while a stake output's staker is active.
	Staked bool
	// Consumed* name the tx that spent it and its block's height and time
	// on the consuming chain (an import's chain for exported UTXOs);
	// ConsumedTxID is ids.Empty while it is unspent.
	ConsumedTxID   ids.ID
	ConsumedHeight uint64
	ConsumedTime   int64
}

func (s *sqlStore) PTx(ctx context.Context, id ids.ID) (_ *TxRecord, err error) {
	defer derrors.Wrap(&err, "store.PTx(%s)", id)
	return oneTx(s.db.QueryRow(ctx, `SELECT t.type, t.bytes, t.block_height, t.idx, b.id, b.timestamp
		FROM p_txs t JOIN p_blocks b ON b.height = t.block_height WHERE t.id = ?`, id[:]), id, false)
}

func (s *sqlStore) XTx(ctx context.Context, id ids.ID) (_ *TxRecord, err error) {
	defer derrors.Wrap(&err, "store.XTx(%s)", id)
	r, err := oneTx(s.db.QueryRow(ctx, `SELECT t.type, t.bytes, t.block_height, t.idx, b.id, b.timestamp
		FROM x_txs t JOIN x_blocks b ON b.height = t.block_height WHERE t.id = ?`, id[:]), id, false)
	if !errors.Is(err, derrors.NotFound) {
		return r, err
	}
	// A pre-Cortina tx: its bytes are the mirrored X/tx container's.
	return oneTx(s.db.QueryRow(ctx, `SELECT d.type, c.bytes, 0, d.idx, NULL, d.timestamp FROM x_dag_txs d
		JOIN containers c ON c.index_name = ? AND c.idx = d.idx WHERE d.id = ?`, XTxIndex, id[:]), id, true)
}

func (s *sqlStore) CTx(ctx context.Context, id ids.ID) (_ *TxRecord, err error) {
	defer derrors.Wrap(&err, "store.CTx(%s)", id)
	return oneTx(s.db.QueryRow(ctx, `SELECT type, bytes, block_height, idx, block_hash, timestamp
		FROM c_atomic_txs WHERE id = ?`, id[:]), id, false)
}

func oneTx(row *sql.Row, id ids.ID, dag bool) (*TxRecord, error) {
	var (
		r          = TxRecord{ID: id, DAG: dag}
		h, idx, ts int64
		block      []byte
	)
	err := row.Scan(&r.Type, &r.Bytes, &h, &idx, &block, &ts)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.NotFound
	}
	if err != nil {
		return nil, err
	}
	r.Height, r.Index, r.Timestamp, r.Bytes = uint64(h), int(idx), fromUnixSeconds(ts), nonNil(r.Bytes)
	if block != nil {
		if r.BlockID, err = ids.ToID(block); err != nil {
			return nil, fmt.Errorf("block of tx %s: %w", id, err)
		}
	}
	return &r, nil
}

// utxoTables are, per chain, the table of the UTXOs it creates and of the
// UTXOs it imports, the SQL of the columns that table lacks (kind,
// stakeable and staked, unqualified), the condition of the UTXOs the
// chain spends of its own, and the conditions of the UTXOs some txs
// emitted and spent, each %[1]s the list of their ids. A tx's emitted
// UTXOs are those whose created_tx_id it is, its spent ones those whose
// consumed_tx_id it is.
var utxoTables = map[internal.Chain]struct {
	table, imported, kind, stakeable, staked, spendCond string
	emitted, spent                                      string
}{
	// p_utxos has no index by the creating or spending tx's id (migration
	// 0053). A tx emitted the UTXOs whose tx_id it is and the few others
	// that name it (rewards), and spent those at its position.
	internal.PChain: {"p_utxos", "p_imported_utxos", "kind", "stakeable_locktime", "staked", " AND kind <> 'exported'",
		`id IN (SELECT id FROM p_utxos WHERE tx_id IN (%[1]s) AND created_tx_id = tx_id
			UNION ALL SELECT id FROM p_utxos WHERE created_tx_id IN (%[1]s) AND created_tx_id <> tx_id)`,
		`(consumed_height, consumed_idx) IN (SELECT block_height, idx FROM p_txs WHERE id IN (%[1]s))
			AND consumed_tx_id IN (%[1]s)`},
	internal.XChain: {"x_utxos", "x_imported_utxos", "kind", "NULL", "FALSE", " AND kind <> 'exported'",
		"created_tx_id IN (%[1]s)", "consumed_tx_id IN (%[1]s)"},
	// The C-chain keeps only the UTXOs it exports, and spends no UTXO of
	// its own.
	internal.CChain: {"c_atomic_utxos", "c_imported_utxos", "'" + exportedKind + "'", "NULL", "FALSE", " AND 1 = 0",
		"created_tx_id IN (%[1]s)", "consumed_tx_id IN (%[1]s)"},
}

// maxTxsUTXOs is how many txs one round of TxsUTXOs' queries asks for:
// the P-chain's conditions bind each id twice.
const maxTxsUTXOs = 500

// inTxs makes cond's SQL for txIDs and its arguments: each %[1]s a list
// of placeholders, bound to the ids in order.
func inTxs(cond string, txIDs []ids.ID) (string, []any) {
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(txIDs)), ", ")
	var args []any
	for range strings.Count(cond, "%[1]s") {
		for _, id := range txIDs {
			args = append(args, id[:])
		}
	}
	return fmt.Sprintf(cond, marks), args
}

func (s *sqlStore) TxUTXOs(ctx context.Context, chain internal.Chain, txID ids.ID) (*TxUTXOs, error) {
	m, err := s.TxsUTXOs(ctx, chain, []ids.ID{txID})
	if err != nil {
		return nil, err
	}
	return m[txID], nil
}

func (s *sqlStore) TxsUTXOs(ctx context.Context, chain internal.Chain, txIDs []ids.ID) (_ map[ids.ID]*TxUTXOs, err error) {
	defer derrors.Wrap(&err, "store.TxsUTXOs(%s, %d txs)", chain, len(txIDs))
	t, ok := utxoTables[chain]
	if !ok {
		return nil, derrors.Invalid("no UTXOs on chain %q", chain)
	}
	out := make(map[ids.ID]*TxUTXOs, len(txIDs))
	var unique []ids.ID // each asked once: a row is appended once
	for _, id := range txIDs {
		if out[id] == nil {
			out[id] = &TxUTXOs{}
			unique = append(unique, id)
		}
	}
	txIDs = unique
	cols := `SELECT id, tx_id, output_index, ` + t.kind + `, peer_chain_id, asset_id, amount, bytes,
		created_tx_id, created_height, created_time, ` + t.staked + `, consumed_tx_id, consumed_height, consumed_time
		FROM ` + t.table
	// Rows come in each tx's order (output index, id); a tx's are kept
	// in the order they come.
	scan := func(list func(*UTXORow) *[]*UTXORow) func(*sql.Rows) error {
		return func(rows *sql.Rows) error {
			u, err := scanUTXORow(rows, chain)
			if err != nil {
				return err
			}
			if dst := list(u); dst != nil {
				*dst = append(*dst, u)
			}
			return nil
		}
	}
	emitted := func(u *UTXORow) *[]*UTXORow {
		if o := out[u.CreatedTxID]; o != nil {
			return &o.Emitted
		}
		return nil
	}
	consumed := func(u *UTXORow) *[]*UTXORow {
		if o := out[u.ConsumedTxID]; o != nil {
			return &o.Consumed
		}
		return nil
	}
	for len(txIDs) > 0 {
		batch := txIDs[:min(len(txIDs), maxTxsUTXOs)]
		txIDs = txIDs[len(batch):]
		cond, args := inTxs(t.emitted, batch)
		if err := s.db.RunQuery(ctx, cols+" WHERE "+cond+" ORDER BY output_index", scan(emitted), args...); err != nil {
			return nil, err
		}
		cond, args = inTxs(t.spent, batch)
		if err := s.db.RunQuery(ctx, cols+" WHERE "+cond+t.spendCond+" ORDER BY id", scan(consumed), args...); err != nil {
			return nil, err
		}
		imported, err := s.importedUTXOs(ctx, t.imported, batch)
		if err != nil {
			return nil, err
		}
		for _, u := range imported {
			if o := out[u.ConsumedTxID]; o != nil {
				o.Consumed = append(o.Consumed, u)
			}
		}
	}
	return out, nil
}

func scanUTXORow(rows *sql.Rows, chain internal.Chain) (*UTXORow, error) {
	var (
		id, txID, peer, asset, created, consumed []byte
		oi, amount, ch, ct                       int64
		consH, consT                             sql.NullInt64
		u                                        = UTXORow{Chain: chain, CreatedKnown: true}
	)
	if err := rows.Scan(&id, &txID, &oi, &u.Kind, &peer, &asset, &amount, &u.Bytes, &created, &ch, &ct,
		&u.Staked, &consumed, &consH, &consT); err != nil {
		return nil, err
	}
	u.OutputIndex, u.Amount, u.CreatedHeight, u.CreatedTime = uint32(oi), uint64(amount), uint64(ch), ct
	u.Bytes = nonNil(u.Bytes)
	if err := toIDs(map[*ids.ID][]byte{&u.ID: id, &u.TxID: txID, &u.AssetID: asset, &u.CreatedTxID: created,
		&u.PeerChain: peer, &u.ConsumedTxID: consumed}); err != nil {
		return nil, err
	}
	u.ConsumedHeight, u.ConsumedTime = uint64(consH.Int64), consT.Int64
	return &u, nil
}

// toIDs converts each stored id; a NULL (nil) leaves its id empty.
func toIDs(m map[*ids.ID][]byte) error {
	for dst, b := range m {
		if b == nil {
			continue
		}
		id, err := ids.ToID(b)
		if err != nil {
			return err
		}
		*dst = id
	}
	return nil
}

// importedUTXOs returns the UTXOs txID imported (rows of table, a
// *_imported_utxos table), each with what its exporting chain stored of it
// when that export is indexed.
func (s *sqlStore) importedUTXOs(ctx context.Context, table string, txIDs []ids.ID) ([]*UTXORow, error) {
	var out []*UTXORow
	cond, args := inTxs("i.consumed_tx_id IN (%[1]s)", txIDs)
	err := s.db.RunQuery(ctx, `SELECT i.id, i.source_chain_id, i.tx_id, i.output_index, i.asset_id, i.amount,
			i.consumed_tx_id, i.consumed_height, i.consumed_time,
			p.bytes, p.created_tx_id, p.created_height, p.created_time,
			x.bytes, x.created_tx_id, x.created_height, x.created_time,
			c.bytes, c.created_tx_id, c.created_height, c.created_time
		FROM `+table+` i
		LEFT JOIN p_utxos p ON p.id = i.id AND p.kind = 'exported'
		LEFT JOIN x_utxos x ON x.id = i.id AND x.kind = 'exported'
		LEFT JOIN c_atomic_utxos c ON c.id = i.id
		WHERE `+cond+` ORDER BY i.id`, func(rows *sql.Rows) error {
		var (
			id, source, txID, asset, consumed []byte
			oi, amount, consH, consT          int64
			exp                               [3]struct {
				bytes, created []byte
				h, t           sql.NullInt64
			}
		)
		if err := rows.Scan(&id, &source, &txID, &oi, &asset, &amount, &consumed, &consH, &consT,
			&exp[0].bytes, &exp[0].created, &exp[0].h, &exp[0].t,
			&exp[1].bytes, &exp[1].created, &exp[1].h, &exp[1].t,
			&exp[2].bytes, &exp[2].created, &exp[2].h, &exp[2].t); err != nil {
			return err
		}
		u := &UTXORow{OutputIndex: uint32(oi), Amount: uint64(amount), ConsumedHeight: uint64(consH), ConsumedTime: consT}
		if err := toIDs(map[*ids.ID][]byte{&u.ID: id, &u.SourceChain: source, &u.TxID: txID, &u.AssetID: asset,
			&u.ConsumedTxID: consumed}); err != nil {
			return err
		}
		for i, c := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
			e := exp[i]
			if e.created == nil {
				continue
			}
			u.Chain, u.Kind, u.Bytes, u.CreatedKnown = c, "exported", e.bytes, true
			u.CreatedHeight, u.CreatedTime = uint64(e.h.Int64), e.t.Int64
			created, err := ids.ToID(e.created)
			if err != nil {
				return err
			}
			u.CreatedTxID = created
			break
		}
		out = append(out, u)
		return nil
	}, args...)
	return out, err
}

func (s *sqlStore) L1ValidatorEvents(ctx context.Context, txID ids.ID) (_ map[ids.ID][]internal.L1Event, err error) {
	defer derrors.Wrap(&err, "store.L1ValidatorEvents(%s)", txID)
	type at struct{ h, i int64 }
	touched := map[ids.ID]at{}
	err = s.db.RunQuery(ctx, "SELECT validation_id, height, idx FROM p_l1_validator_events WHERE tx_id = ?", func(rows *sql.Rows) error {
		var (
			vid []byte
			p   at
		)
		if err := rows.Scan(&vid, &p.h, &p.i); err != nil {
			return err
		}
		v, err := ids.ToID(vid)
		if err != nil {
			return err
		}
		touched[v] = p
		return nil
	}, txID[:])
	if err != nil {
		return nil, err
	}
	out := make(map[ids.ID][]internal.L1Event, len(touched))
	for vid, p := range touched {
		events, err := l1Events(ctx, s.db, vid)
		if err != nil {
			return nil, err
		}
		var upTo []internal.L1Event
		for _, e := range events {
			if int64(e.Height) > p.h || (int64(e.Height) == p.h && int64(e.Index) > p.i) {
				break
			}
			upTo = append(upTo, e)
		}
		out[vid] = upTo
	}
	return out, nil
}
