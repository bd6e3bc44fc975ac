//! [`AgentStore`] on PostgreSQL: agents, their signing keys, and repository settings.

use super::tx::PgTx;
use crate::domain::digest::Digest;
use crate::store::sql::{
    agent_key_row, agent_row, setting_row, Columns as _, AGENT_COLS, AGENT_KEY_COLS,
};
use crate::store::{AgentKeyRow, AgentRow, AgentStore, Flow, Result};

impl AgentStore for PgTx<'_> {
    fn agent(&self, name: &str) -> Result<Option<AgentRow>> {
        self.one(&format!("SELECT {AGENT_COLS} FROM agents WHERE name = $1"), &[&name], agent_row)
    }

    fn agent_by_token(&self, token_hash: &Digest) -> Result<Option<AgentRow>> {
        let sql = format!("SELECT {AGENT_COLS} FROM agents WHERE token_hash = $1");
        self.one(&sql, &[&token_hash.to_hex()], agent_row)
    }

    fn for_each_agent(&self, f: &mut dyn FnMut(AgentRow) -> Flow) -> Result<()> {
        self.stream(&format!("SELECT {AGENT_COLS} FROM agents ORDER BY name"), agent_row, f)
    }

    fn insert_agent(&mut self, a: &AgentRow) -> Result<()> {
        self.insert(
            "agents",
            AGENT_COLS,
            &[&a.name, &a.scope, &a.token_hash.to_hex(), &a.created_at, &a.revoked_at],
        )
    }

    fn update_agent(&mut self, a: &AgentRow) -> Result<()> {
        self.exec("UPDATE agents SET revoked_at = $2 WHERE name = $1", &[&a.name, &a.revoked_at])?;
        Ok(())
    }

    fn agent_keys(&self, agent: &str) -> Result<Vec<AgentKeyRow>> {
        let sql = format!(
            "SELECT {AGENT_KEY_COLS} FROM agent_keys WHERE agent = $1 ORDER BY created_at, key_id"
        );
        self.all(&sql, &[&agent], agent_key_row)
    }

    fn for_each_agent_key(&self, f: &mut dyn FnMut(AgentKeyRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {AGENT_KEY_COLS} FROM agent_keys ORDER BY agent, key_id");
        self.stream(&sql, agent_key_row, f)
    }

    fn insert_agent_key(&mut self, k: &AgentKeyRow) -> Result<()> {
        self.insert(
            "agent_keys",
            AGENT_KEY_COLS,
            &[&k.agent, &k.key_id, &k.vkey, &k.created_at, &k.revoked_at],
        )
    }

    fn update_agent_key(&mut self, k: &AgentKeyRow) -> Result<()> {
        self.exec(
            "UPDATE agent_keys SET revoked_at = $3 WHERE agent = $1 AND key_id = $2",
            &[&k.agent, &k.key_id, &k.revoked_at],
        )?;
        Ok(())
    }

    fn setting(&self, name: &str) -> Result<Option<String>> {
        if let Some(value) = self.conn.borrow().known.setting(name) {
            return Ok(value);
        }
        let sql = "SELECT value FROM repo_settings WHERE name = $1";
        let value = self.one(sql, &[&name], |r| r.text(0))?;
        self.conn.borrow_mut().known.set_setting(name, value.clone());
        Ok(value)
    }

    fn for_each_setting(&self, f: &mut dyn FnMut((String, String)) -> Flow) -> Result<()> {
        self.stream("SELECT name, value FROM repo_settings ORDER BY name", setting_row, f)
    }

    fn set_setting(&mut self, name: &str, value: &str) -> Result<()> {
        self.exec(
            "INSERT INTO repo_settings (name, value) VALUES ($1, $2) \
             ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            &[&name, &value],
        )?;
        self.conn.get_mut().known.set_setting(name, Some(value.to_owned()));
        Ok(())
    }
}
