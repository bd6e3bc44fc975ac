//! [`PaymentStore`] on PostgreSQL: redeemed payments.

use super::tx::PgTx;
use crate::store::sql::{payment_row, sql_i64, PAYMENT_COLS};
use crate::store::{Flow, PaymentRow, PaymentStore, Result};

impl PaymentStore for PgTx<'_> {
    fn payment(&self, tx_hash: &str) -> Result<Option<PaymentRow>> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payment_receipts WHERE tx_hash = $1");
        self.one(&sql, &[&tx_hash], payment_row)
    }

    fn for_each_payment(&self, f: &mut dyn FnMut(PaymentRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payment_receipts ORDER BY tx_hash");
        self.stream(&sql, payment_row, f)
    }

    fn insert_payment(&mut self, p: &PaymentRow) -> Result<()> {
        self.insert(
            "payment_receipts",
            PAYMENT_COLS,
            &[
                &p.tx_hash,
                &p.pad_id,
                &p.payer,
                &p.amount_units,
                &p.token,
                &p.recipient,
                &sql_i64(p.chain_id),
                &sql_i64(p.block_number),
                &p.redeemed_at,
            ],
        )
    }
}
