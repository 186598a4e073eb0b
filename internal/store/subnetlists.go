package store

import (
	"context"
	"database/sql"
	"math"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
)

// SubnetListStore pages through the subnets and blockchains in creation
// order, for the Data API's lists (SubnetStore reads them all at once).
type SubnetListStore interface {
	// SubnetPage returns up to limit subnets in creation order, newest
	// first when desc, after the subnet created at *after in that order
	// when after is not nil.
	SubnetPage(ctx context.Context, after *internal.PPos, limit int, desc bool) ([]*internal.Subnet, error)
	// BlockchainPage is SubnetPage for the blockchains CreateChainTxs
	// made.
	BlockchainPage(ctx context.Context, after *internal.PPos, limit int, desc bool) ([]*internal.Blockchain, error)
	// SubnetBlockchains returns the blockchains of each of subnets, in
	// creation order.
	SubnetBlockchains(ctx context.Context, subnets []ids.ID) (map[ids.ID][]*internal.Blockchain, error)
}

// createdPage is the WHERE and ORDER BY of a page by creation position:
// each tx creates at most one subnet or blockchain, so (created_height,
// created_idx) is a key.
func createdPage(after *internal.PPos, limit int, desc bool) (string, []any, error) {
	if limit <= 0 {
		return "", nil, derrors.Invalid("limit must be positive, not %d", limit)
	}
	q, args := "", []any{}
	if after != nil {
		if after.Height > math.MaxInt64 {
			return "", nil, derrors.Invalid("height %d out of range", after.Height)
		}
		op := ">"
		if desc {
			op = "<"
		}
		q = " WHERE (created_height " + op + " ? OR (created_height = ? AND created_idx " + op + " ?))"
		args = append(args, int64(after.Height), int64(after.Height), after.Index)
	}
	if desc {
		q += " ORDER BY created_height DESC, created_idx DESC LIMIT ?"
	} else {
		q += " ORDER BY created_height, created_idx LIMIT ?"
	}
	return q, append(args, limit), nil
}

func (s *sqlStore) SubnetPage(ctx context.Context, after *internal.PPos, limit int, desc bool) (_ []*internal.Subnet, err error) {
	defer derrors.Wrap(&err, "store.SubnetPage(limit=%d, desc=%t)", limit, desc)
	page, args, err := createdPage(after, limit, desc)
	if err != nil {
		return nil, err
	}
	var out []*internal.Subnet
	err = s.db.RunQuery(ctx, subnetSelect+page, func(rows *sql.Rows) error {
		sn, err := scanSubnet(rows)
		if err != nil {
			return err
		}
		out = append(out, sn)
		return nil
	}, args...)
	return out, err
}

func (s *sqlStore) BlockchainPage(ctx context.Context, after *internal.PPos, limit int, desc bool) (_ []*internal.Blockchain, err error) {
	defer derrors.Wrap(&err, "store.BlockchainPage(limit=%d, desc=%t)", limit, desc)
	page, args, err := createdPage(after, limit, desc)
	if err != nil {
		return nil, err
	}
	var out []*internal.Blockchain
	err = s.db.RunQuery(ctx, blockchainSelect+page, func(rows *sql.Rows) error {
		c, err := scanBlockchain(rows)
		if err != nil {
			return err
		}
		out = append(out, c)
		return nil
	}, args...)
	return out, err
}

func (s *sqlStore) SubnetBlockchains(ctx context.Context, subnets []ids.ID) (_ map[ids.ID][]*internal.Blockchain, err error) {
	defer derrors.Wrap(&err, "store.SubnetBlockchains(%d subnets)", len(subnets))
	out := make(map[ids.ID][]*internal.Blockchain, len(subnets))
	if len(subnets) == 0 {
		return out, nil
	}
	keys := make([][]byte, len(subnets))
	for i, id := range subnets {
		keys[i] = id[:]
	}
	in, args := s.db.InList(keys)
	err = s.db.RunQuery(ctx, blockchainSelect+" WHERE subnet_id "+in+" ORDER BY created_height, created_idx",
		func(rows *sql.Rows) error {
			c, err := scanBlockchain(rows)
			if err != nil {
				return err
			}
			out[c.SubnetID] = append(out[c.SubnetID], c)
			return nil
		}, args...)
	return out, err
}
