-- Pay-per-pad: each redeemed payment (a transaction hash) and the pad it paid for. The
-- primary key makes a spent hash unusable forever, even under a race.
CREATE TABLE payment_receipts (
    tx_hash      TEXT PRIMARY KEY,
    pad_id       TEXT NOT NULL,
    payer        TEXT NOT NULL,
    amount_units TEXT NOT NULL,
    token        TEXT NOT NULL,
    recipient    TEXT NOT NULL,
    chain_id     INTEGER NOT NULL,
    block_number INTEGER NOT NULL,
    redeemed_at  INTEGER NOT NULL
);
CREATE INDEX idx_payment_receipts_pad ON payment_receipts(pad_id);
