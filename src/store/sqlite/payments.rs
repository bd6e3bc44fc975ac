//! [`PaymentStore`] on SQLite: redeemed payments.

use rusqlite::params;

use super::rows::payment_row;
use super::tx::SqliteTx;
use crate::store::sql::{sql_i64, PAYMENT_COLS};
use crate::store::{Flow, PaymentRow, PaymentStore, Result};

impl PaymentStore for SqliteTx<'_> {
    fn payment(&self, tx_hash: &str) -> Result<Option<PaymentRow>> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payment_receipts WHERE tx_hash = ?1");
        self.one(&sql, [tx_hash], payment_row)
    }

    fn for_each_payment(&self, f: &mut dyn FnMut(PaymentRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payment_receipts ORDER BY tx_hash");
        self.stream(&sql, &[], payment_row, f)
    }

    fn insert_payment(&mut self, p: &PaymentRow) -> Result<()> {
        let sql = format!(
            "INSERT INTO payment_receipts ({PAYMENT_COLS}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
        );
        self.exec(
            &sql,
            params![
                p.tx_hash,
                p.pad_id,
                p.payer,
                p.amount_units,
                p.token,
                p.recipient,
                sql_i64(p.chain_id),
                sql_i64(p.block_number),
                p.redeemed_at
            ],
        )?;
        Ok(())
    }
}
