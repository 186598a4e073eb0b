package store

import (
	"fmt"
	"strings"

	"github.com/avaindex/avaindex/internal/database"
)

// The latest blocks and txs of one or several chains, each read by one
// statement that returns the page's rows and no more:
//
//   - each chain is an arm, the first limit rows of its range of the
//     position index (blocks by number, txs by block number and index) under
//     its own ORDER BY and LIMIT; the arms of several chains go under UNION
//     ALL, merged by the outer ORDER BY (block timestamp, chain id, number,
//     index, all descending) on at most chains × limit rows. A chain's
//     timestamps do not decrease with its numbers, so an arm's first rows by
//     number are its first by time. (Reading each chain's page and merging
//     them in Go decoded chains × limit rows for a page of limit.)
//   - a chain's range below a key of another chain ends at its last block up
//     to the key's second, looked up by a scalar subquery of the same
//     statement: no transaction and no round trip for it.
//   - a tx's block columns are joined to the page's txs only. PostgreSQL, left
//     to itself, merge-joins the txs' range with the chain's blocks from the
//     top of the chain down: a page 10,000 blocks deep read 10,000 block
//     rows, and a page of failed txs every block between them. The LATERAL
//     lookup, fenced by OFFSET 0 so that it is not pulled up into a join,
//     reads a block by its key for each tx. SQLite already does that.

// latestArm is one chain's range in a latest list: its rows satisfying
// cond (with args), "" for all.
type latestArm struct {
	cid  int64
	cond string
	args []any
}

// txBefore bounds a tx arm to the txs before key in its chain. The plain
// bound is the index range both engines seek; the row value refines it
// within the block.
func (a *latestArm) txBefore(key EVMTxKey) {
	b := blockBound(key.BlockNumber)
	a.cond = " AND t.block_number <= ? AND (t.block_number, t.idx) < (?, ?)"
	a.args = []any{b, b, int64(key.Index)}
}

// latestArms are the arms of the lists of several chains after the key
// (nil: from the top), for a tx list or a block list.
func latestArms(chainIDs []uint64, after *EVMTimeKey, txs bool) ([]latestArm, error) {
	col := "number"
	if txs {
		col = "t.block_number"
	}
	arms := make([]latestArm, 0, len(chainIDs))
	for _, id := range chainIDs {
		cid, err := evmChainID(id)
		if err != nil {
			return nil, err
		}
		a := latestArm{cid: cid}
		switch {
		case after == nil:
		case id == after.ChainID && txs:
			// The key's block is read on from the tx's index.
			a.txBefore(EVMTxKey{BlockNumber: after.Number, Index: after.Index})
		case id == after.ChainID:
			a.cond, a.args = " AND number < ?", []any{blockBound(after.Number)}
		default:
			// A chain ordered before the key's comes after it from the
			// blocks of the key's second down; one ordered after it, from
			// those before that second. Its timestamps do not decrease
			// with its numbers: the last such block is the last of the
			// time index's range.
			op := "<="
			if id > after.ChainID {
				op = "<"
			}
			a.cond = " AND " + col + " < COALESCE((SELECT l.number + 1 FROM evm_blocks l WHERE l.chain_id = ? AND l.timestamp " + op +
				" ? ORDER BY l.timestamp DESC, l.number DESC LIMIT 1), 0)"
			a.args = []any{cid, after.Timestamp}
		}
		arms = append(arms, a)
	}
	return arms, nil
}

// latestTxsQuery reads the txs of the arms with the status filter, in
// the columns of a listedTxScanner with the chain id: by position
// (one chain), or byTime for several.
func latestTxsQuery(d database.Dialect, arms []latestArm, status *uint8, limit int, byTime bool) (string, []any) {
	var (
		b    strings.Builder
		args []any
	)
	b.WriteString(`SELECT t.chain_id, t.hash, t.block_number, b.hash, b.timestamp, b.time_ms, b.min_delay_excess, t.idx,
	t.from_address, t.to_address, t.value, t.nonce, t.type, t.gas_limit, t.gas_price, t.max_fee, t.max_priority_fee,
	t.gas_used, t.status, t.input, t.contract_address FROM (`)
	for i, a := range arms {
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&b, `SELECT * FROM (SELECT t.chain_id, t.hash, t.block_number, t.idx, t.from_address, t.to_address, t.value,
	t.nonce, t.type, t.gas_limit, t.gas_price, t.max_fee, t.max_priority_fee, t.gas_used, t.status,
	substr(t.input, 1, 4) AS input, t.contract_address FROM evm_txs t WHERE t.chain_id = ?%s%s
	ORDER BY t.block_number DESC, t.idx DESC LIMIT ?) a%d`, a.cond, statusFilter(status), i)
		args = append(append(append(args, a.cid), a.args...), limit)
	}
	b.WriteString(") t ")
	if d == database.Postgres {
		b.WriteString(`CROSS JOIN LATERAL (SELECT hash, timestamp, time_ms, min_delay_excess FROM evm_blocks
	WHERE chain_id = t.chain_id AND number = t.block_number OFFSET 0) b`)
	} else {
		b.WriteString("JOIN evm_blocks b ON b.chain_id = t.chain_id AND b.number = t.block_number")
	}
	if byTime {
		b.WriteString(" ORDER BY b.timestamp DESC, t.chain_id DESC, t.block_number DESC, t.idx DESC LIMIT ?")
	} else {
		b.WriteString(" ORDER BY t.block_number DESC, t.idx DESC LIMIT ?")
	}
	return b.String(), append(args, limit)
}

// latestBlocksQuery reads the blocks of the arms by time, in the chain id
// then the columns of scanEVMBlock.
func latestBlocksQuery(arms []latestArm, limit int) (string, []any) {
	var (
		b    strings.Builder
		args []any
	)
	cols := strings.TrimPrefix(strings.TrimSuffix(evmBlockSelect, " FROM evm_blocks"), "SELECT ")
	for i, a := range arms {
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&b, "SELECT * FROM (SELECT chain_id, %s FROM evm_blocks WHERE chain_id = ?%s ORDER BY number DESC LIMIT ?) a%d",
			cols, a.cond, i)
		args = append(append(append(args, a.cid), a.args...), limit)
	}
	b.WriteString(" ORDER BY timestamp DESC, chain_id DESC, number DESC LIMIT ?")
	return b.String(), append(args, limit)
}
