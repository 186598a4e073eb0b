package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// LookingGlassReader is what the Metrics API's Looking Glass reads: the
// holders of an NFT contract, and the addresses whose native, ERC-20 or
// NFT holdings met a condition over a time range, or whose net BTC.b
// bridged amount reaches a threshold.
type LookingGlassReader interface {
	// NFTCollection returns what the store knows of an NFT contract: its
	// type, name and symbol, and its current holders and tokens. NotFound
	// when the chain has no ERC-721 or ERC-1155 token of it.
	NFTCollection(ctx context.Context, chainID uint64, contract common.Address) (NFTCollection, error)
	// NFTHolders returns a page of the contract's current holders by
	// address ascending, those after after (nil: from the first), with
	// how many of its tokens each holds (ERC-1155: how many of its token
	// ids). A page is a seek in the key, whatever its depth.
	NFTHolders(ctx context.Context, chainID uint64, contract common.Address, typ internal.ERCType, after *common.Address, limit int) ([]NFTHolder, error)
	// BalanceHolders returns the addresses whose native or ERC-20 balance
	// met q, by address ascending, each with its balance at q.To (perhaps
	// nil when q.NoAmounts); InvalidArgument when more than q.Max do.
	BalanceHolders(ctx context.Context, q BalanceQuery) ([]AddressAmount, error)
	// NFTHoldersOver returns the addresses that held a token of the NFT
	// contract q.Token at some time (q.Mode AnyTime) or at every time
	// (AllTime) of [q.From, q.To], by address ascending, each with the
	// tokens it held at q.To (perhaps nil when q.NoAmounts);
	// InvalidArgument when more than q.Max did.
	NFTHoldersOver(ctx context.Context, q BalanceQuery) ([]AddressAmount, error)
	// BridgedAmounts returns the addresses whose net amount of token
	// minted to them less burned from them is at least min, by address
	// ascending; InvalidArgument when more than max are.
	BridgedAmounts(ctx context.Context, chainID uint64, token common.Address, min *big.Int, max int) ([]AddressAmount, error)
	// EVMChainVersion is the last block applied of the chain (-1 when
	// none): the answers above change only when it does.
	EVMChainVersion(ctx context.Context, chainID uint64) (int64, error)
}

// NFTCollection is an NFT contract's summary.
type NFTCollection struct {
	Type            internal.ERCType
	Name, Symbol    string
	Holders, Tokens int64
}

// NFTHolder is a holder of an NFT contract and how many tokens it holds.
type NFTHolder struct {
	Address common.Address
	Count   int64
}

// AddressAmount is an address and an amount of it (a balance, a count, a
// net bridged amount: negative when it burned more than was minted to it).
type AddressAmount struct {
	Address common.Address
	Amount  *big.Int
}

// BalanceMode is how a balance must meet its minimum over a range.
type BalanceMode int

const (
	// AnyTime: at some time of the range.
	AnyTime BalanceMode = iota
	// AllTime: at every time of the range.
	AllTime
	// Latest: at the range's end.
	Latest
)

// BalanceQuery asks which addresses' balances were at least Min over the
// times [From, To] (unix seconds) of an EVM chain: the balance at a time
// is the one after the last block at or before it (zero before the
// chain's first block).
type BalanceQuery struct {
	ChainID uint64
	// Token is the ERC-20 or NFT contract; nil for the native coin.
	Token    *common.Address
	From, To int64
	Min      *big.Int
	Mode     BalanceMode
	// Max bounds the answer: more addresses than Max is InvalidArgument.
	Max int
	// NoAmounts says the answer's amounts are not wanted: a read that
	// can do without them (the latest balances', the NFT spans' for
	// AnyTime) leaves them nil.
	NoAmounts bool
}

// tooMany is the refusal of an answer of more than q.Max addresses.
func (q BalanceQuery) tooMany() error {
	return derrors.Invalid("the query matches more than %d addresses; narrow it", q.Max)
}

func (s *sqlStore) NFTCollection(ctx context.Context, chainID uint64, contract common.Address) (_ NFTCollection, err error) {
	defer derrors.Wrap(&err, "store.NFTCollection(%d, %s)", chainID, contract)
	cid, err := evmChainID(chainID)
	if err != nil {
		return NFTCollection{}, err
	}
	var c NFTCollection
	err = s.db.ReadTx(ctx, func(tx *database.DB) error {
		var code int
		err := tx.QueryRow(ctx, "SELECT erc_type FROM nft_tokens WHERE chain_id = ? AND address = ? LIMIT 1", cid, contract[:]).Scan(&code)
		if errors.Is(err, sql.ErrNoRows) {
			return derrors.Client(derrors.NotFound, "no ERC-721 or ERC-1155 token of contract %s was transferred on chain %d", contract.Hex(), chainID)
		}
		if err != nil {
			return err
		}
		c.Type = ercType(code)
		err = tx.QueryRow(ctx, "SELECT name, symbol FROM evm_contracts WHERE chain_id = ? AND address = ?", cid, contract[:]).Scan(&c.Name, &c.Symbol)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// The totals the NFT derivation keeps (nft_holder_totals): for 721,
		// the holders and the tokens they own; for 1155, the holders.
		err = tx.QueryRow(ctx, "SELECT holders, tokens FROM nft_holder_totals WHERE chain_id = ? AND address = ? AND erc_type = ?",
			cid, contract[:], ercTypeCode(c.Type)).Scan(&c.Holders, &c.Tokens)
		if errors.Is(err, sql.ErrNoRows) {
			c.Holders, c.Tokens, err = 0, 0, nil
		}
		if err != nil || c.Type == internal.ERC721 {
			return err
		}
		return tx.QueryRow(ctx, `SELECT COUNT(DISTINCT token_id) FROM nft_balances
			WHERE chain_id = ? AND address = ? AND balance <> ?`, cid, contract[:], []byte{}).Scan(&c.Tokens)
	})
	return c, err
}

func (s *sqlStore) NFTHolders(ctx context.Context, chainID uint64, contract common.Address, typ internal.ERCType, after *common.Address, limit int) (_ []NFTHolder, err error) {
	defer derrors.Wrap(&err, "store.NFTHolders(%d, %s)", chainID, contract)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	// A range of nft_holders' key (the NFT derivation keeps it): by holder, the
	// key's last column, so that a page after a holder starts with a seek.
	q, args := `SELECT holder, tokens FROM nft_holders WHERE chain_id = ? AND address = ? AND erc_type = ?
		ORDER BY holder LIMIT ?`, []any{cid, contract[:], ercTypeCode(typ), limit}
	if after != nil {
		q, args = `SELECT holder, tokens FROM nft_holders WHERE chain_id = ? AND address = ? AND erc_type = ? AND holder > ?
		ORDER BY holder LIMIT ?`, []any{cid, contract[:], ercTypeCode(typ), after[:], limit}
	}
	var out []NFTHolder
	err = s.db.RunPrepared(ctx, q, func(rows *sql.Rows) error {
		var (
			h    NFTHolder
			addr []byte
		)
		if err := rows.Scan(&addr, &h.Count); err != nil {
			return err
		}
		h.Address = common.BytesToAddress(addr)
		out = append(out, h)
		return nil
	}, args...)
	return out, err
}

// blockAt is the number of the chain's last block at or before ts; -1
// when none is.
func blockAt(ctx context.Context, db *database.DB, cid, ts int64) (int64, error) {
	var n int64
	err := db.QueryRow(ctx, `SELECT number FROM evm_blocks WHERE chain_id = ? AND timestamp <= ?
		ORDER BY timestamp DESC, number DESC LIMIT 1`, cid, ts).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return -1, nil
	}
	return n, err
}

// holderState follows one address's balance along the rows of the range.
type holderState struct {
	addr  common.Address
	start *big.Int // after the range's first block (zero before)
	last  *big.Int
	any   bool // at least min at some time of the range
	all   bool // at least min at every time of the range after the start
}

// verdict reports whether h met q.
func (h *holderState) verdict(q BalanceQuery) bool {
	startOK := h.start.Cmp(q.Min) >= 0
	switch q.Mode {
	case AllTime:
		return startOK && h.all
	case Latest:
		return h.last.Cmp(q.Min) >= 0
	}
	return startOK || h.any
}

// collect appends h to out when it met q, and errors past q.Max.
func collect(out []AddressAmount, h *holderState, q BalanceQuery) ([]AddressAmount, error) {
	if h == nil || !h.verdict(q) {
		return out, nil
	}
	if len(out) >= q.Max {
		return nil, q.tooMany()
	}
	return append(out, AddressAmount{Address: h.addr, Amount: h.last}), nil
}

func (s *sqlStore) BalanceHolders(ctx context.Context, q BalanceQuery) (_ []AddressAmount, err error) {
	defer derrors.Wrap(&err, "store.BalanceHolders(%d)", q.ChainID)
	cid, err := evmChainID(q.ChainID)
	if err != nil {
		return nil, err
	}
	var out []AddressAmount
	err = s.db.ReadTx(ctx, func(tx *database.DB) error {
		if q.Token == nil {
			var exact int
			err := tx.QueryRow(ctx, "SELECT balances FROM evm_chains WHERE chain_id = ?", cid).Scan(&exact)
			if errors.Is(err, sql.ErrNoRows) {
				return derrors.Client(derrors.NotFound, "chain %d has no block indexed", q.ChainID)
			}
			if err != nil {
				return err
			}
			if exact == 0 {
				return derrors.Client(derrors.Unavailable, "chain %d's native balances are not derivable from its indexed blocks", q.ChainID)
			}
		} else {
			var (
				unexplained int
				reason      string
			)
			err := tx.QueryRow(ctx, "SELECT unexplained, reason FROM evm_erc20_tokens WHERE chain_id = ? AND token = ?", cid, q.Token[:]).Scan(&unexplained, &reason)
			if errors.Is(err, sql.ErrNoRows) {
				return derrors.Client(derrors.NotFound, "no ERC-20 transfer of contract %s was indexed on chain %d", q.Token.Hex(), q.ChainID)
			}
			if err != nil {
				return err
			}
			if unexplained != 0 {
				return derrors.Client(derrors.Unavailable, "the balances of ERC-20 contract %s are not derivable from its transfer logs: %s", q.Token.Hex(), reason)
			}
		}
		from, err := blockAt(ctx, tx, cid, q.From)
		if err != nil {
			return err
		}
		to, err := blockAt(ctx, tx, cid, q.To)
		if err != nil || to < 0 {
			return err
		}
		if q.Mode != AnyTime {
			list, ok, err := latestHolders(ctx, tx, cid, q, from, to)
			if err != nil || ok {
				out = list
				return err
			}
		}
		query, args := `SELECT address, block_number, balance FROM evm_balances WHERE chain_id = ? AND block_number <= ?
			ORDER BY address, block_number`, []any{cid, to}
		if q.Token != nil {
			query, args = `SELECT address, block_number, balance FROM evm_erc20_balances WHERE chain_id = ? AND token = ? AND block_number <= ?
				ORDER BY address, block_number`, []any{cid, q.Token[:], to}
		}
		out, err = replayBalances(ctx, tx, q, from, query, args)
		return err
	})
	return out, err
}

// replayBalances follows the balance rows query returns (address, block
// number, balance; by address, then block) and returns the addresses
// that met q, the block from being the range's start's.
func replayBalances(ctx context.Context, tx *database.DB, q BalanceQuery, from int64, query string, args []any) ([]AddressAmount, error) {
	var (
		out     []AddressAmount
		h       *holderState
		addr    []byte
		block   int64
		balance []byte
	)
	err := tx.RunQuery(ctx, query, func(rows *sql.Rows) error {
		if err := rows.Scan(&addr, &block, &balance); err != nil {
			return err
		}
		if h == nil || !bytes.Equal(h.addr[:], addr) {
			var err error
			if out, err = collect(out, h, q); err != nil {
				return err
			}
			h = &holderState{addr: common.BytesToAddress(addr), start: new(big.Int), all: true}
			h.last = h.start
		}
		bal := bigFrom(balance)
		h.last = bal
		if block <= from {
			h.start = bal
			return nil
		}
		if bal.Cmp(q.Min) >= 0 {
			h.any = true
		} else {
			h.all = false
		}
		return nil
	}, args...)
	if err != nil {
		return nil, err
	}
	return collect(out, h, q)
}

// latestHolders answers a Latest or AllTime q from the latest balances
// (evm_latest_balances for the native coin, evm_erc20_holdings for a
// token: the same columns, and an index by balance) when the range ends
// at the chain's last block (to, the block of q.To, is it): then an
// address's latest balance is its balance at the range's end. Latest is
// the addresses whose latest balance is at least q.Min, a range of the
// balances' index. AllTime is a subset of them (the end is a time of the
// range): their history alone is replayed. ok is false when the table cannot answer: its backfill is
// pending, the range ends before the last block, or q.Min is negative
// (the encoding is of non-negative amounts); AnyTime is not answered here
// (an address may have met the minimum inside the range and fallen below
// it since).
func latestHolders(ctx context.Context, tx *database.DB, cid int64, q BalanceQuery, from, to int64) (_ []AddressAmount, ok bool, err error) {
	if q.Mode == AnyTime || q.Min.Sign() < 0 {
		return nil, false, nil
	}
	table, backfill := "evm_latest_balances", "evm_latest_balances"
	if q.Token != nil {
		table, backfill = "evm_erc20_holdings", "evm_erc20_balances"
	}
	if ready, err := backfillDone(ctx, tx, backfill); err != nil || !ready {
		return nil, false, err
	}
	var head int64
	if err := tx.QueryRow(ctx, "SELECT MAX(number) FROM evm_blocks WHERE chain_id = ?", cid).Scan(&head); err != nil {
		return nil, false, err
	}
	if to < head {
		return nil, false, nil
	}
	tok := nativeToken
	if q.Token != nil {
		tok = q.Token[:]
	}
	min := sortableAmount(q.Min)
	if q.Mode == AllTime {
		query := `SELECT b.address, b.block_number, b.balance FROM evm_latest_balances l
			JOIN evm_balances b ON b.chain_id = l.chain_id AND b.address = l.address
			WHERE l.chain_id = ? AND l.token = ? AND l.balance >= ? AND b.block_number <= ?
			ORDER BY b.address, b.block_number`
		if q.Token != nil {
			query = `SELECT b.address, b.block_number, b.balance FROM evm_erc20_holdings l
			JOIN evm_erc20_balances b ON b.chain_id = l.chain_id AND b.address = l.address AND b.token = l.token
			WHERE l.chain_id = ? AND l.token = ? AND l.balance >= ? AND b.block_number <= ?
			ORDER BY b.address, b.block_number`
		}
		out, err := replayBalances(ctx, tx, q, from, query, []any{cid, tok, min, to})
		return out, true, err
	}
	// The index gives the rows by balance: they are sorted by address
	// here, as rows without pointers, before any Int is made. They are
	// read through database.EachRow (one value on SQLite), at most
	// q.Max+1 of them, to tell a query that matches too many.
	buf := getRows(1024)
	defer func() { putRows(buf) }()
	var (
		rows    = *buf
		amounts []byte
	)
	fields := []database.Field{{Expr: "address", Size: common.AddressLength}, {Expr: "balance"}}
	if q.NoAmounts {
		fields = fields[:1]
	}
	err = tx.EachRow(ctx, fields,
		"FROM "+table+" WHERE chain_id = ? AND token = ? AND balance >= ? LIMIT ?", func(r *database.Row) error {
			if len(rows) >= q.Max {
				return q.tooMany()
			}
			// Doubled when full, into a buffer of the pool: append grows
			// a slice this large by a quarter, copying a list of 100,000
			// rows about five times.
			if len(rows) == cap(rows) {
				bigger := getRows(2 * len(rows))
				*bigger = append(*bigger, rows...)
				putRows(buf)
				buf, rows = bigger, *bigger
			}
			row := amountRow{addr: common.Address(r.Bytes(0))}
			if !q.NoAmounts {
				if cap(amounts)-len(amounts) < 33 {
					amounts = slices.Grow(amounts, max(len(amounts), 8192))
				}
				// Offsets fit: q.Max amounts of 33 bytes at most.
				row.off = uint32(len(amounts))
				amounts = append(amounts, r.Bytes(1)...)
				row.end = uint32(len(amounts))
			}
			rows = append(rows, row)
			return nil
		}, cid, tok, min, q.Max+1)
	if err != nil {
		return nil, false, err
	}
	sortAmountRows(rows)
	out := make([]AddressAmount, len(rows))
	var slab amountSlab
	for i, row := range rows {
		out[i].Address = row.addr
		if !q.NoAmounts {
			out[i].Amount = slab.fromSortable(amounts[row.off:row.end])
		}
	}
	return out, true, nil
}

func (s *sqlStore) NFTHoldersOver(ctx context.Context, q BalanceQuery) (_ []AddressAmount, err error) {
	defer derrors.Wrap(&err, "store.NFTHoldersOver(%d)", q.ChainID)
	cid, err := evmChainID(q.ChainID)
	if err != nil {
		return nil, err
	}
	if q.Token == nil {
		return nil, errors.New("an NFT contract is needed")
	}
	var out []AddressAmount
	// emit takes the holders by address ascending.
	emit := func(h *holderState) error {
		var err error
		out, err = collect(out, h, q)
		return err
	}
	err = s.db.ReadTx(ctx, func(tx *database.DB) error {
		out = nil
		from, err := blockAt(ctx, tx, cid, q.From)
		if err != nil {
			return err
		}
		to, err := blockAt(ctx, tx, cid, q.To)
		if err != nil || to < 0 {
			return err
		}
		// The spans express the counts that are not zero: a minimum of
		// zero or less is met by every address the contract's transfers
		// touched, which the replay alone knows.
		ready, err := nftSpansReady(ctx, tx)
		if err != nil {
			return err
		}
		if ready && q.Min.Sign() > 0 {
			// The contract's current holders: about as many as the
			// answer, which is then built without growing.
			var holders int
			err := tx.QueryRow(ctx, "SELECT COALESCE(SUM(holders), 0) FROM nft_holder_totals WHERE chain_id = ? AND address = ?",
				cid, q.Token[:]).Scan(&holders)
			if err != nil {
				return err
			}
			out = make([]AddressAmount, 0, min(max(holders, 0), q.Max))
			if q.Mode == AnyTime && q.NoAmounts {
				out, err = nftAnyTimeAddresses(ctx, tx, cid, q, min(from, to), to, out)
				return err
			}
			if err := nftSpanStates(ctx, tx, cid, q, min(from, to), to, emit); err != nil {
				return err
			}
			// A range long past answers fewer: the answer is kept (in
			// the API's cache) at its size.
			if cap(out)-len(out) > len(out)/4 {
				out = slices.Clone(out)
			}
			return nil
		}
		return nftReplayStates(ctx, tx, cid, q, from, to, emit)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// spanState is a holder's state over a range as its spans tell it.
type spanState struct {
	holderState
	// covered is how many blocks of the range the spans cover: all of
	// them unless the count was zero at some block.
	covered int64
}

// nftSpanStates follows each holder of contract q.Token over the blocks
// [from, to] (from <= to) through its spans that overlap them (nft_spans),
// as nftReplayStates does through the transfers, for a positive q.Min,
// and passes them to emit by address. A count is judged where a span
// opens within (from, to], the one at from being the start; a block no
// span covers has a zero count, below the minimum. The open spans are
// read by holder, in their key's order: only the closed ones (the
// holders' changes since from, few for a recent range) are sorted here.
func nftSpanStates(ctx context.Context, tx *database.DB, cid int64, q BalanceQuery, from, to int64, emit func(*holderState) error) error {
	var slab amountSlab
	judge := func(st *spanState, sFrom, sTo int64, amount []byte) {
		amt := slab.fromSpan(amount)
		if sFrom <= from {
			st.start = amt
		}
		if sTo > to {
			st.last = amt
		}
		if sFrom > from {
			if amt.Cmp(q.Min) >= 0 {
				st.any = true
			} else {
				st.all = false
			}
		}
		st.covered += min(sTo, to+1) - max(sFrom, from)
	}
	zero := new(big.Int)
	holders := 0
	done := func(st *spanState) error {
		if holders++; holders > 4*q.Max {
			return derrors.Invalid("the query's contract has more than %d holders over the range; narrow it", 4*q.Max)
		}
		st.all = st.all && st.covered == to-from+1
		if st.start == nil {
			st.start = zero
		}
		if st.last == nil {
			st.last = slab.fromBytes(nil)
		}
		return emit(&st.holderState)
	}
	// Every span closed inside or after the range (database.EachRow: one
	// value on SQLite).
	closed := map[common.Address]*spanState{}
	err := tx.EachRow(ctx, []database.Field{{Expr: "from_block", Int: true}, {Expr: "to_block", Int: true},
		{Expr: "holder", Size: common.AddressLength}, {Expr: "amount"}},
		"FROM nft_spans WHERE chain_id = ? AND address = ? AND to_block > ? AND to_block < ? AND from_block <= ?",
		func(r *database.Row) error {
			a := common.Address(r.Bytes(2))
			st := closed[a]
			if st == nil {
				if len(closed) >= 4*q.Max {
					return derrors.Invalid("the query's contract has more than %d holders over the range; narrow it", 4*q.Max)
				}
				st = &spanState{holderState: holderState{addr: a, all: true}}
				closed[a] = st
			}
			judge(st, r.Int(0), r.Int(1), r.Bytes(3))
			return nil
		}, cid, q.Token[:], from, int64(openSpan), to)
	if err != nil {
		return err
	}
	rest := make([]common.Address, 0, len(closed))
	for a := range closed {
		rest = append(rest, a)
	}
	sortAddresses(rest)
	// The open spans by holder, merged with them.
	var open spanState
	return mergeOpenSpans(ctx, tx, cid, q.Token, to, []database.Field{{Expr: "from_block", Int: true},
		{Expr: "holder", Size: common.AddressLength}, {Expr: "amount"}}, 1, rest,
		func(a common.Address) error { return done(closed[a]) },
		func(a common.Address, r *database.Row, wasClosed bool) error {
			st := &open
			if wasClosed {
				st = closed[a]
			} else {
				open = spanState{holderState: holderState{addr: a, all: true}}
			}
			judge(st, r.Int(0), openSpan, r.Bytes(2))
			return done(st)
		})
}

// nftAnyTimeAddresses appends to out the addresses that held at least
// q.Min (positive) of contract q.Token at some block of [from, to], by
// address, without their amounts (an AnyTime q with NoAmounts). An
// address did when one of its spans that overlap the range holds that
// much: the span at from is its count at the start, the others open
// inside the range. So each span's amount is compared as bytes, and no
// holder's state is followed.
func nftAnyTimeAddresses(ctx context.Context, tx *database.DB, cid int64, q BalanceQuery, from, to int64, out []AddressAmount) ([]AddressAmount, error) {
	least := q.Min.Bytes()
	add := func(a common.Address) error {
		if len(out) >= q.Max {
			return q.tooMany()
		}
		out = append(out, AddressAmount{Address: a})
		return nil
	}
	fields := []database.Field{{Expr: "holder", Size: common.AddressLength}, {Expr: "amount"}}
	// The holders that met q in a span closed inside or after the range
	// (few for a recent range), sorted here.
	var (
		closed []common.Address
		met    = map[common.Address]bool{}
	)
	err := tx.EachRow(ctx, fields,
		"FROM nft_spans WHERE chain_id = ? AND address = ? AND to_block > ? AND to_block < ? AND from_block <= ?",
		func(r *database.Row) error {
			a := common.Address(r.Bytes(0))
			if met[a] || !spanAtLeast(r.Bytes(1), least) {
				return nil
			}
			if len(met) >= q.Max {
				return q.tooMany()
			}
			met[a] = true
			closed = append(closed, a)
			return nil
		}, cid, q.Token[:], from, int64(openSpan), to)
	if err != nil {
		return nil, err
	}
	sortAddresses(closed)
	// The open spans by holder, merged with them.
	err = mergeOpenSpans(ctx, tx, cid, q.Token, to, fields, 0, closed, add,
		func(a common.Address, r *database.Row, wasClosed bool) error {
			if !wasClosed && !spanAtLeast(r.Bytes(1), least) {
				return nil
			}
			return add(a)
		})
	return out, err
}

// mergeOpenSpans reads the spans of contract token open at to (from_block
// <= to) by holder, each row's fields those of fields (the holder's
// address the one at holder), and merges them with closed, the holders
// (sorted) the caller met in spans closed inside or after the range:
// flush is called for each of closed without an open span, open for each
// open span with whether its holder is one of closed, all in holder
// order. Their order is checked (database.EachRow: one value on SQLite).
func mergeOpenSpans(ctx context.Context, tx *database.DB, cid int64, token *common.Address, to int64, fields []database.Field, holder int,
	closed []common.Address, flush func(common.Address) error, open func(a common.Address, r *database.Row, wasClosed bool) error) error {
	var order holderOrder
	err := tx.EachRow(ctx, fields,
		"FROM nft_spans WHERE chain_id = ? AND address = ? AND to_block = ? AND from_block <= ? ORDER BY holder",
		func(r *database.Row) error {
			a := common.Address(r.Bytes(holder))
			if err := order.next(a); err != nil {
				return err
			}
			for len(closed) > 0 && bytes.Compare(closed[0][:], a[:]) < 0 {
				if err := flush(closed[0]); err != nil {
					return err
				}
				closed = closed[1:]
			}
			was := len(closed) > 0 && closed[0] == a
			if was {
				closed = closed[1:]
			}
			return open(a, r, was)
		}, cid, token[:], int64(openSpan), to)
	if err != nil {
		return err
	}
	for _, a := range closed {
		if err := flush(a); err != nil {
			return err
		}
	}
	return nil
}

// holderOrder checks that the open spans come by holder ascending, as
// their reads ask: SQLite's concatenation (database.EachRow) keeps its
// subquery's order without promising it.
type holderOrder struct {
	last    common.Address
	started bool
}

func (o *holderOrder) next(a common.Address) error {
	if o.started && bytes.Compare(a[:], o.last[:]) <= 0 {
		return fmt.Errorf("the open NFT holding spans out of holder order at %s", a)
	}
	o.last, o.started = a, true
	return nil
}

// spanAtLeast reports whether the span amount b (spanAmount's encoding)
// is at least the positive amount whose magnitude is least (big-endian,
// as big.Int.Bytes gives it).
func spanAtLeast(b, least []byte) bool {
	if len(b) > 0 && b[0] == 0 {
		return false // negative
	}
	if len(b) != len(least) {
		return len(b) > len(least)
	}
	return bytes.Compare(b, least) >= 0
}

// nftReplayStates follows each holder of contract q.Token up to block to
// through the contract's transfers in block order, and passes them to
// emit by address.
func nftReplayStates(ctx context.Context, tx *database.DB, cid int64, q BalanceQuery, from, to int64, emit func(*holderState) error) error {
	states := map[common.Address]*holderState{}
	// The contract's transfers in block order: each holder's count of
	// tokens (ERC-1155: of units), judged at each block's end.
	var (
		touched  []*holderState
		curBlock int64 = -1
	)
	judge := func() {
		for _, h := range touched {
			if curBlock <= from {
				h.start = new(big.Int).Set(h.last)
				continue
			}
			if h.last.Cmp(q.Min) >= 0 {
				h.any = true
			} else {
				h.all = false
			}
		}
		touched = touched[:0]
	}
	move := func(a common.Address, d *big.Int) {
		if a == (common.Address{}) {
			return
		}
		h := states[a]
		if h == nil {
			h = &holderState{addr: a, start: new(big.Int), last: new(big.Int), all: true}
			states[a] = h
		}
		h.last = new(big.Int).Add(h.last, d)
		touched = append(touched, h)
	}
	var (
		block    int64
		code     int
		src, dst []byte
		value    []byte
	)
	err := tx.RunQuery(ctx, `SELECT block_number, erc_type, from_address, to_address, value FROM evm_transfers
		WHERE chain_id = ? AND token = ? AND block_number <= ? AND erc_type IN (721, 1155)
		ORDER BY block_number, log_index, batch_index`, func(rows *sql.Rows) error {
		if err := rows.Scan(&block, &code, &src, &dst, &value); err != nil {
			return err
		}
		if block != curBlock {
			judge()
			curBlock = block
		}
		if len(states) > 4*q.Max {
			return derrors.Invalid("the query's contract has more than %d holders over its history; narrow it", 4*q.Max)
		}
		m := storedNFTMove(block, *q.Token, code, src, dst, value)
		move(m.From, new(big.Int).Neg(m.Amount))
		move(m.To, m.Amount)
		return nil
	}, cid, q.Token[:], to)
	if err != nil {
		return err
	}
	judge()
	addrs := make([]common.Address, 0, len(states))
	for a := range states {
		addrs = append(addrs, a)
	}
	sortAddresses(addrs)
	for _, a := range addrs {
		if err := emit(states[a]); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqlStore) BridgedAmounts(ctx context.Context, chainID uint64, token common.Address, min *big.Int, max int) (_ []AddressAmount, err error) {
	defer derrors.Wrap(&err, "store.BridgedAmounts(%d, %s)", chainID, token)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	zero := common.Address{}
	net := map[common.Address]*big.Int{}
	var src, dst, value []byte
	err = s.db.RunQuery(ctx, `SELECT from_address, to_address, value FROM evm_transfers
		WHERE chain_id = ? AND token = ? AND erc_type = 20 AND (from_address = ? OR to_address = ?)`, func(rows *sql.Rows) error {
		if err := rows.Scan(&src, &dst, &value); err != nil {
			return err
		}
		a, v := common.BytesToAddress(dst), bigFrom(value)
		if a == zero { // a burn: bridged back out
			a, v = common.BytesToAddress(src), v.Neg(v)
		}
		if a == zero {
			return nil
		}
		if net[a] == nil {
			if len(net) >= 4*max {
				return derrors.Invalid("more than %d addresses bridged; raise the threshold", 4*max)
			}
			net[a] = new(big.Int)
		}
		net[a].Add(net[a], v)
		return nil
	}, cid, token[:], zero[:], zero[:])
	if err != nil {
		return nil, err
	}
	addrs := make([]common.Address, 0, len(net))
	for a, v := range net {
		if v.Cmp(min) >= 0 {
			addrs = append(addrs, a)
		}
	}
	if len(addrs) > max {
		return nil, derrors.Invalid("more than %d addresses bridged at least the threshold; raise it", max)
	}
	sortAddresses(addrs)
	out := make([]AddressAmount, len(addrs))
	for i, a := range addrs {
		out[i] = AddressAmount{Address: a, Amount: net[a]}
	}
	return out, nil
}

func sortAddresses(addrs []common.Address) {
	slices.SortFunc(addrs, func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
}

func (s *sqlStore) EVMChainVersion(ctx context.Context, chainID uint64) (_ int64, err error) {
	defer derrors.Wrap(&err, "store.EVMChainVersion(%d)", chainID)
	h, ok, err := cursor(ctx, s.db, EVMCursor(chainID))
	if err != nil || !ok {
		return -1, err
	}
	return int64(h), nil
}
