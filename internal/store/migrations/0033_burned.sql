-- The AVAX each chain burned, as running sums (burned.go) that an applier
-- of each chain adds to in the blocks' transaction: the GET /v1/avax/supply
-- burned amounts. One row per sum:
--   'P', 'X', 'C'  the fees of the chain's txs (C: its atomic txs), nAVAX;
--   'X:dag'        the fees of the X-chain's pre-Cortina DAG txs, nAVAX;
--   'evm:<id>'     the fees of EVM chain <id>'s txs (gas used times the
--                  effective gas price), in its native token's wei.
-- next is the next height (X/tx index for 'X:dag') the sum has not
-- counted: an applier skips what is below it, so a batch applied again
-- or rederived counts once.
CREATE TABLE burned (
    sum_key TEXT   PRIMARY KEY,
    next    BIGINT NOT NULL,
    amount  TEXT   NOT NULL -- a decimal integer: wei sums outgrow BIGINT
);

-- A store that holds blocks already gains the sums by a rederive of the
-- P-, X- and C-chains (and the EVM chains' from their stored blocks) that
-- the backfill asks for (backfill.go).
INSERT INTO settings (key, value) VALUES ('backfill:burned', '');

-- The AVAX that time-locked UTXOs hold (GET /v1/avax/supply's
-- totalLocked, locked.go): few UTXOs carry a locktime, so the unspent ones
-- that do are indexed alone.
CREATE INDEX p_utxos_locktime ON p_utxos (locktime) WHERE locktime <> 0 AND consumed_tx_id IS NULL;
CREATE INDEX p_utxos_stakeable_locktime ON p_utxos (stakeable_locktime) WHERE stakeable_locktime IS NOT NULL AND consumed_tx_id IS NULL;
CREATE INDEX x_utxos_locktime ON x_utxos (locktime) WHERE locktime <> 0 AND consumed_tx_id IS NULL;
