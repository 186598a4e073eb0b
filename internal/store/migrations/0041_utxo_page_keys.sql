-- The node's getUTXOs pages (platform.getUTXOs, avm.getUTXOs; see
-- utxopage.go) list an address's UTXOs newest first. The order is over
-- p_utxos / x_utxos columns while the address is on the owners' rows, so a
-- page had to join and sort the address's whole UTXO set to return its
-- 1,024. Each owner row now carries its UTXO's place in that order,
-- page_key, set while the UTXO is in the chain's UTXO set and NULL
-- otherwise (spent, staked, exported): 48 bytes, big-endian, whose byte
-- order is the order's reverse:
--   8  the height that put it in the set (P: spendable_height,
--      X: created_height),
--   4  created_idx + 1 (its tx's index in the block; -1 for genesis),
--   32 tx_id (UTXOID.TxID),
--   4  output_index.
-- A page walks the partial index below down from its cursor's key. The
-- appliers keep page_key (putxos.go, xutxos.go): set when a UTXO enters
-- the set (produced, or stake released), cleared when consumed; they find
-- a UTXO's owner rows by utxo_id.

ALTER TABLE p_utxo_addresses ADD COLUMN page_key BYTEA;
ALTER TABLE x_utxo_addresses ADD COLUMN page_key BYTEA;

CREATE INDEX p_utxo_addresses_utxo ON p_utxo_addresses (utxo_id);
CREATE INDEX x_utxo_addresses_utxo ON x_utxo_addresses (utxo_id);

-- utxo_id last: a page's rows come off the index alone.
CREATE INDEX p_utxo_addresses_page ON p_utxo_addresses (address, page_key, utxo_id) WHERE page_key IS NOT NULL;
CREATE INDEX x_utxo_addresses_page ON x_utxo_addresses (address, page_key, utxo_id) WHERE page_key IS NOT NULL;

-- The UTXOs stored before this migration gain their keys by the backfill
-- (utxopage.go, utxoPageKeyParts), a range of heights per transaction.
INSERT INTO settings (key, value) VALUES ('backfill:utxo_page_keys', '');
