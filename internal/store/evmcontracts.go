package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

var (
	evmContractColumns = []string{"chain_id", "address", "deployer", "deployer_contract", "tx_hash", "block_number", "idx",
		"timestamp", "create_type", "erc_type", "name", "symbol", "decimals"}
	evmDeploymentColumns = []string{"chain_id", "deployer", "block_number", "idx", "address"}
)

// A deployment replaces the row of a contract seen before it was known to
// be deployed (in the same batch, or a genesis contract redeployed), never
// another deployment, so re-applying a batch changes nothing.
const contractDeployed = `ON CONFLICT (chain_id, address) DO UPDATE SET deployer = excluded.deployer,
	deployer_contract = excluded.deployer_contract, tx_hash = excluded.tx_hash, block_number = excluded.block_number,
	idx = excluded.idx, timestamp = excluded.timestamp, create_type = excluded.create_type, erc_type = excluded.erc_type,
	name = excluded.name, symbol = excluded.symbol, decimals = excluded.decimals
	WHERE evm_contracts.tx_hash IS NULL`

func contractRow(cid int64, c *internal.EVMContract, deployed bool) []any {
	var decimals, deployer, txHash any
	if c.Decimals != nil {
		decimals = int(*c.Decimals)
	}
	if deployed {
		deployer, txHash = c.Deployer[:], c.TxHash[:]
	}
	return []any{cid, c.Address[:], deployer, optAddr(c.DeployerContract), txHash, blockBound(c.BlockNumber),
		int64(min(c.Index, 1<<62)), unixSeconds(c.Timestamp), c.CreateType, ercCode(c.Type), c.Name, c.Symbol, decimals}
}

func applyEVMContracts(ctx context.Context, tx *database.DB, cid int64, blocks []*internal.EVMBlockData) error {
	var deployed, seen, deployments [][]any
	done := map[common.Address]bool{}
	for _, b := range blocks {
		for i := range b.Contracts {
			c := &b.Contracts[i]
			if done[c.Address] {
				continue // redeployed in the batch: the first deployment stays, as across batches
			}
			done[c.Address] = true
			deployed = append(deployed, contractRow(cid, c, true))
			deployments = append(deployments, []any{cid, c.Deployer[:], blockBound(c.BlockNumber), int64(min(c.Index, 1<<62)), c.Address[:]})
			if c.DeployerContract != nil && *c.DeployerContract != c.Deployer {
				deployments = append(deployments, []any{cid, c.DeployerContract[:], blockBound(c.BlockNumber), int64(min(c.Index, 1<<62)), c.Address[:]})
			}
		}
	}
	for _, b := range blocks {
		for i := range b.Seen {
			seen = append(seen, contractRow(cid, &b.Seen[i], false))
		}
	}
	if err := tx.Append(ctx, "evm_contracts", evmContractColumns, deployed, contractDeployed); err != nil {
		return err
	}
	if err := tx.Append(ctx, "evm_contracts", evmContractColumns, seen, onConflictDoNothing); err != nil {
		return err
	}
	return tx.Append(ctx, "evm_deployments", evmDeploymentColumns, deployments, onConflictDoNothing)
}

const contractSelect = `SELECT c.address, c.deployer, c.deployer_contract, c.tx_hash, c.block_number, c.idx, c.timestamp,
	c.create_type, c.erc_type, c.name, c.symbol, c.decimals`

func scanContract(row scanner) (*internal.EVMContract, error) {
	var (
		c                                 internal.EVMContract
		addr, deployer, deployerC, txHash []byte
		number, idx, ts                   int64
		code                              int
		decimals                          sql.NullInt64
	)
	if err := row.Scan(&addr, &deployer, &deployerC, &txHash, &number, &idx, &ts, &c.CreateType, &code, &c.Name,
		&c.Symbol, &decimals); err != nil {
		return nil, err
	}
	c.Address, c.Deployer, c.DeployerContract = common.BytesToAddress(addr), common.BytesToAddress(deployer), optAddrFrom(deployerC)
	c.TxHash, c.BlockNumber, c.Index, c.Timestamp = common.BytesToHash(txHash), uint64(number), uint64(idx), fromUnixSeconds(ts)
	c.Type = ercType(code)
	if decimals.Valid {
		d := uint8(decimals.Int64)
		c.Decimals = &d
	}
	return &c, nil
}

// EVMContract returns a contract deployed on the chain, or one seen
// emitting transfers that no indexed block deployed (a genesis
// allocation), whose TxHash and Deployer are zero.
func (s *sqlStore) EVMContract(ctx context.Context, chainID uint64, addr common.Address) (_ *internal.EVMContract, err error) {
	defer derrors.Wrap(&err, "store.EVMContract(%d, %s)", chainID, addr)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	c, err := scanContract(s.db.QueryRow(ctx, contractSelect+" FROM evm_contracts c WHERE c.chain_id = ? AND c.address = ?", cid, addr[:]))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.NotFound
	}
	return c, err
}

func (s *sqlStore) EVMContracts(ctx context.Context, chainID uint64, addrs []common.Address) (_ map[common.Address]*internal.EVMContract, err error) {
	defer derrors.Wrap(&err, "store.EVMContracts(%d)", chainID)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	out := make(map[common.Address]*internal.EVMContract, len(addrs))
	const chunk = 500
	for len(addrs) > 0 {
		n := min(chunk, len(addrs))
		args := []any{cid}
		for _, a := range addrs[:n] {
			args = append(args, a[:])
		}
		err := s.db.RunQuery(ctx, contractSelect+" FROM evm_contracts c WHERE c.chain_id = ? AND c.address IN (?"+
			strings.Repeat(", ?", n-1)+")", func(rows *sql.Rows) error {
			c, err := scanContract(rows)
			if err != nil {
				return err
			}
			out[c.Address] = c
			return nil
		}, args...)
		if err != nil {
			return nil, err
		}
		addrs = addrs[n:]
	}
	return out, nil
}

func (s *sqlStore) EVMContractsByDeployer(ctx context.Context, chainID uint64, deployer common.Address, after *EVMContractKey, limit int) (_ []internal.EVMContract, err error) {
	defer derrors.Wrap(&err, "store.EVMContractsByDeployer(%d, %s)", chainID, deployer)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	q := contractSelect + ` FROM evm_deployments d JOIN evm_contracts c ON c.chain_id = d.chain_id AND c.address = d.address
		WHERE d.chain_id = ? AND d.deployer = ?`
	args := []any{cid, deployer[:]}
	if after != nil {
		n := blockBound(after.BlockNumber)
		q += " AND d.block_number <= ? AND (d.block_number, d.idx) < (?, ?)"
		args = append(args, n, n, int64(min(after.Index, 1<<62)))
	}
	q += " ORDER BY d.block_number DESC, d.idx DESC LIMIT ?"
	var out []internal.EVMContract
	err = s.db.RunQuery(ctx, q, func(rows *sql.Rows) error {
		c, err := scanContract(rows)
		if err != nil {
			return err
		}
		out = append(out, *c)
		return nil
	}, append(args, limit)...)
	return out, err
}

func (s *sqlStore) EVMContractTypes(ctx context.Context, chainID uint64, addrs []common.Address) (_ map[common.Address]internal.ERCType, err error) {
	defer derrors.Wrap(&err, "store.EVMContractTypes(%d)", chainID)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	out := map[common.Address]internal.ERCType{}
	const chunk = 500
	for len(addrs) > 0 {
		n := min(chunk, len(addrs))
		args := []any{cid}
		for _, a := range addrs[:n] {
			args = append(args, a[:])
		}
		q := "SELECT address, erc_type FROM evm_contracts WHERE chain_id = ? AND address IN (?" + strings.Repeat(", ?", n-1) + ")"
		err := s.db.RunQuery(ctx, q, func(rows *sql.Rows) error {
			var (
				a    []byte
				code int
			)
			if err := rows.Scan(&a, &code); err != nil {
				return err
			}
			out[common.BytesToAddress(a)] = ercType(code)
			return nil
		}, args...)
		if err != nil {
			return nil, err
		}
		addrs = addrs[n:]
	}
	return out, nil
}
