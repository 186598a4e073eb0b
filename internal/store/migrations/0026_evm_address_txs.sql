-- The address index of the EVM chains: every tx an address took part in,
-- as one row per (address, tx, role), written by ApplyEVMBlocks
-- (evmaddresstxs.go) and filled here from what is already stored, so that
-- a store indexed before this migration gains it without the node.
--
-- role 1: the tx's sender, recipient or created contract (its native
--         activity, listNativeTransactions);
-- role 2: a party of one of the tx's token transfers or listed internal
--         txs that is none of role 1's (roles 1 and 2 together are the
--         address's whole history, listTransactions, each tx once);
-- role 3: a party of one of the tx's listed internal txs, whatever else
--         (listInternalTransactions).
-- A listed internal tx is one that moves value or creates a contract,
-- what the Data API's internal transaction lists hold.
CREATE TABLE evm_address_txs (
    chain_id     BIGINT  NOT NULL,
    address      BYTEA   NOT NULL,
    role         INTEGER NOT NULL,
    block_number BIGINT  NOT NULL,
    tx_index     INTEGER NOT NULL,
    PRIMARY KEY (chain_id, address, role, block_number, tx_index)
);

INSERT INTO evm_address_txs (chain_id, address, role, block_number, tx_index)
SELECT chain_id, from_address, 1, block_number, idx FROM evm_txs
UNION SELECT chain_id, to_address, 1, block_number, idx FROM evm_txs WHERE to_address IS NOT NULL
UNION SELECT chain_id, contract_address, 1, block_number, idx FROM evm_txs WHERE contract_address IS NOT NULL;

INSERT INTO evm_address_txs (chain_id, address, role, block_number, tx_index)
SELECT DISTINCT p.chain_id, p.address, 2, t.block_number, t.idx
FROM (SELECT chain_id, tx_hash, from_address AS address FROM evm_transfers
      UNION SELECT chain_id, tx_hash, to_address FROM evm_transfers
      UNION SELECT chain_id, tx_hash, from_address FROM evm_internal_txs
          WHERE length(value) > 0 OR call_type IN ('CREATE', 'CREATE2', 'CREATE3')
      UNION SELECT chain_id, tx_hash, to_address FROM evm_internal_txs
          WHERE length(value) > 0 OR call_type IN ('CREATE', 'CREATE2', 'CREATE3')) p
JOIN evm_txs t ON t.chain_id = p.chain_id AND t.hash = p.tx_hash
WHERE NOT EXISTS (SELECT 1 FROM evm_address_txs a WHERE a.chain_id = p.chain_id AND a.address = p.address
    AND a.role = 1 AND a.block_number = t.block_number AND a.tx_index = t.idx);

INSERT INTO evm_address_txs (chain_id, address, role, block_number, tx_index)
SELECT DISTINCT p.chain_id, p.address, 3, t.block_number, t.idx
FROM (SELECT chain_id, tx_hash, from_address AS address FROM evm_internal_txs
          WHERE length(value) > 0 OR call_type IN ('CREATE', 'CREATE2', 'CREATE3')
      UNION SELECT chain_id, tx_hash, to_address FROM evm_internal_txs
          WHERE length(value) > 0 OR call_type IN ('CREATE', 'CREATE2', 'CREATE3')) p
JOIN evm_txs t ON t.chain_id = p.chain_id AND t.hash = p.tx_hash;
