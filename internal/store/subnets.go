package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
)

// SubnetStore keeps the subnets and blockchains P-chain transactions
// created, with their owners, conversions and transformations.
type SubnetStore interface {
	// Subnets returns every subnet, in creation order (height, then
	// position in the block).
	Subnets(ctx context.Context) ([]*internal.Subnet, error)
	// Subnet returns one subnet.
	Subnet(ctx context.Context, id ids.ID) (*internal.Subnet, error)
	// Blockchains returns every blockchain created by a CreateChainTx, in
	// creation order. The primary network's genesis chains (X, C) are
	// not among them: they are created by the genesis, not by a block.
	Blockchains(ctx context.Context) ([]*internal.Blockchain, error)
	// Blockchain returns one blockchain created by a CreateChainTx.
	Blockchain(ctx context.Context, id ids.ID) (*internal.Blockchain, error)
}

// WriteStateChanges writes the subnet and blockchain changes of a batch
// of P-chain blocks (pchain derives them). Every write is idempotent:
// creations are inserted with ON CONFLICT DO NOTHING, an owner change
// applies only over an owner set earlier in the chain, and conversions
// and transformations are set once.
func (t *PTx) WriteStateChanges(ctx context.Context, ch *internal.PStateChanges) error {
	tx := t.db
	if ch == nil || ch.Empty() {
		return nil
	}
	for _, s := range ch.Subnets {
		_, err := tx.Exec(ctx, `INSERT INTO p_subnets
			(id, created_height, created_idx, created_time,
			 owner_threshold, owner_locktime, owner_addresses, owner_height, owner_idx)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			s.ID[:], int64(s.Created.Height), s.Created.Index, unixSeconds(s.Created.Time),
			int64(s.Owner.Threshold), int64(s.Owner.Locktime), packAddrs(s.Owner.Addresses),
			int64(s.OwnerPos.Height), s.OwnerPos.Index)
		if err != nil {
			return fmt.Errorf("storing subnet %s: %w", s.ID, err)
		}
	}
	for _, c := range ch.Chains {
		_, err := tx.Exec(ctx, `INSERT INTO p_blockchains
			(id, subnet_id, name, vm_id, fx_ids, genesis, created_height, created_idx, created_time)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			c.ID[:], c.SubnetID[:], c.Name, c.VMID[:], psJoinIDs(c.FxIDs), nonNil(c.Genesis),
			int64(c.Created.Height), c.Created.Index, unixSeconds(c.Created.Time))
		if err != nil {
			return fmt.Errorf("storing blockchain %s: %w", c.ID, err)
		}
	}
	for _, o := range ch.Owners {
		h := int64(o.At.Height)
		_, err := tx.Exec(ctx, `UPDATE p_subnets
			SET owner_threshold = ?, owner_locktime = ?, owner_addresses = ?, owner_height = ?, owner_idx = ?
			WHERE id = ? AND (owner_height < ? OR (owner_height = ? AND owner_idx < ?))`,
			int64(o.Owner.Threshold), int64(o.Owner.Locktime), packAddrs(o.Owner.Addresses), h, o.At.Index,
			o.SubnetID[:], h, h, o.At.Index)
		if err != nil {
			return fmt.Errorf("storing the owner of subnet %s: %w", o.SubnetID, err)
		}
	}
	for _, c := range ch.Conversions {
		_, err := tx.Exec(ctx, `UPDATE p_subnets
			SET conversion_id = ?, manager_chain_id = ?, manager_address = ?, conversion_tx_id = ?,
			    converted_height = ?, converted_idx = ?, converted_time = ?
			WHERE id = ? AND conversion_id IS NULL`,
			c.ID[:], c.ManagerChainID[:], nonNil(c.ManagerAddress), c.TxID[:],
			int64(c.At.Height), c.At.Index, unixSeconds(c.At.Time), c.SubnetID[:])
		if err != nil {
			return fmt.Errorf("storing the conversion of subnet %s: %w", c.SubnetID, err)
		}
	}
	for _, t := range ch.Transforms {
		_, err := tx.Exec(ctx, `UPDATE p_subnets
			SET transform_tx_id = ?, transformed_height = ?, transformed_idx = ?, transformed_time = ?
			WHERE id = ? AND transform_tx_id IS NULL`,
			t.TxID[:], int64(t.At.Height), t.At.Index, unixSeconds(t.At.Time), t.SubnetID[:])
		if err != nil {
			return fmt.Errorf("storing the transformation of subnet %s: %w", t.SubnetID, err)
		}
	}
	return nil
}

const subnetSelect = `SELECT id, created_height, created_idx, created_time,
	owner_threshold, owner_locktime, owner_addresses, owner_height, owner_idx,
	conversion_id, manager_chain_id, manager_address, conversion_tx_id,
	converted_height, converted_idx, converted_time,
	transform_tx_id, transformed_height, transformed_idx, transformed_time
	FROM p_subnets`

func (s *sqlStore) Subnets(ctx context.Context) (_ []*internal.Subnet, err error) {
	defer derrors.Wrap(&err, "store.Subnets")
	var out []*internal.Subnet
	err = s.db.RunQuery(ctx, subnetSelect+" ORDER BY created_height, created_idx", func(rows *sql.Rows) error {
		sn, err := scanSubnet(rows)
		if err != nil {
			return err
		}
		out = append(out, sn)
		return nil
	})
	return out, err
}

func (s *sqlStore) Subnet(ctx context.Context, id ids.ID) (_ *internal.Subnet, err error) {
	defer derrors.Wrap(&err, "store.Subnet(%s)", id)
	sn, err := scanSubnet(s.db.QueryRow(ctx, subnetSelect+" WHERE id = ?", id[:]))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.NotFound
	}
	return sn, err
}

func scanSubnet(r scanner) (*internal.Subnet, error) {
	var (
		id, addrs                               []byte
		ch, ci, ct, thr, lock, oh, oi           int64
		convID, mgrChain, mgrAddr, convTx, trTx []byte
		convH, convI, convT, trH, trI, trT      sql.NullInt64
		sn                                      internal.Subnet
		err                                     error
	)
	if err := r.Scan(&id, &ch, &ci, &ct, &thr, &lock, &addrs, &oh, &oi,
		&convID, &mgrChain, &mgrAddr, &convTx, &convH, &convI, &convT,
		&trTx, &trH, &trI, &trT); err != nil {
		return nil, err
	}
	if sn.ID, err = ids.ToID(id); err != nil {
		return nil, fmt.Errorf("stored subnet id: %w", err)
	}
	sn.Created = psPos(ch, ci, ct)
	sn.OwnerPos = psPos(oh, oi, 0)
	sn.Owner = internal.SubnetOwner{Threshold: uint32(thr), Locktime: uint64(lock)}
	if sn.Owner.Addresses, err = unpackAddrs(addrs); err != nil {
		return nil, fmt.Errorf("stored subnet %s: %w", sn.ID, err)
	}
	if convID != nil {
		c := &internal.SubnetConversion{ManagerAddress: nonNil(mgrAddr), At: psPos(convH.Int64, convI.Int64, convT.Int64)}
		for _, f := range []struct {
			dst *ids.ID
			b   []byte
		}{{&c.ID, convID}, {&c.ManagerChainID, mgrChain}, {&c.TxID, convTx}} {
			if *f.dst, err = ids.ToID(f.b); err != nil {
				return nil, fmt.Errorf("stored conversion of subnet %s: %w", sn.ID, err)
			}
		}
		sn.Conversion = c
	}
	if trTx != nil {
		if sn.TransformTxID, err = ids.ToID(trTx); err != nil {
			return nil, fmt.Errorf("stored transformation of subnet %s: %w", sn.ID, err)
		}
		sn.Transformed = psPos(trH.Int64, trI.Int64, trT.Int64)
	}
	return &sn, nil
}

const blockchainSelect = `SELECT id, subnet_id, name, vm_id, fx_ids, genesis,
	created_height, created_idx, created_time FROM p_blockchains`

func (s *sqlStore) Blockchains(ctx context.Context) (_ []*internal.Blockchain, err error) {
	defer derrors.Wrap(&err, "store.Blockchains")
	var out []*internal.Blockchain
	err = s.db.RunQuery(ctx, blockchainSelect+" ORDER BY created_height, created_idx", func(rows *sql.Rows) error {
		c, err := scanBlockchain(rows)
		if err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

func (s *sqlStore) Blockchain(ctx context.Context, id ids.ID) (_ *internal.Blockchain, err error) {
	defer derrors.Wrap(&err, "store.Blockchain(%s)", id)
	c, err := scanBlockchain(s.db.QueryRow(ctx, blockchainSelect+" WHERE id = ?", id[:]))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.NotFound
	}
	return c, err
}

func scanBlockchain(r scanner) (*internal.Blockchain, error) {
	var (
		id, subnet, vm, fxs []byte
		h, i, t             int64
		c                   internal.Blockchain
		err                 error
	)
	if err := r.Scan(&id, &subnet, &c.Name, &vm, &fxs, &c.Genesis, &h, &i, &t); err != nil {
		return nil, err
	}
	if c.ID, err = ids.ToID(id); err != nil {
		return nil, fmt.Errorf("stored blockchain id: %w", err)
	}
	if c.SubnetID, err = ids.ToID(subnet); err != nil {
		return nil, fmt.Errorf("stored blockchain %s: subnet id: %w", c.ID, err)
	}
	if c.VMID, err = ids.ToID(vm); err != nil {
		return nil, fmt.Errorf("stored blockchain %s: vm id: %w", c.ID, err)
	}
	if c.FxIDs, err = psSplitIDs(fxs); err != nil {
		return nil, fmt.Errorf("stored blockchain %s: %w", c.ID, err)
	}
	c.Genesis = nonNil(c.Genesis)
	c.Created = psPos(h, i, t)
	return &c, nil
}

func psPos(h, i, t int64) internal.PPos {
	p := internal.PPos{Height: uint64(h), Index: int(i)}
	if t != 0 {
		p.Time = time.Unix(t, 0).UTC()
	}
	return p
}

func psJoinIDs(a []ids.ID) []byte {
	b := make([]byte, 0, len(a)*ids.IDLen)
	for _, id := range a {
		b = append(b, id[:]...)
	}
	return b
}

func psSplitIDs(b []byte) ([]ids.ID, error) {
	if len(b)%ids.IDLen != 0 {
		return nil, fmt.Errorf("id list of %d bytes", len(b))
	}
	out := make([]ids.ID, len(b)/ids.IDLen)
	for i := range out {
		copy(out[i][:], b[i*ids.IDLen:])
	}
	return out, nil
}
