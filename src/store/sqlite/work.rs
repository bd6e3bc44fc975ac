//! [`WorkStore`] on SQLite: leases, plans and steps.

use rusqlite::params;

use super::rows::{lease_row, plan_row, step_row};
use super::tx::SqliteTx;
use crate::domain::work::LeaseState;
use crate::store::sql::{sql_i64, LEASE_COLS, PLAN_COLS, STEP_COLS};
use crate::store::{Flow, LeaseCounts, LeaseQuery, LeaseRow, PlanRow, Result, StepRow, WorkStore};

impl WorkStore for SqliteTx<'_> {
    fn lease(&self, id: &str) -> Result<Option<LeaseRow>> {
        self.one(&format!("SELECT {LEASE_COLS} FROM leases WHERE id = ?1"), [id], lease_row)
    }

    fn newest_lease(&self, scope: &str, work: &str) -> Result<Option<LeaseRow>> {
        let sql = format!(
            "SELECT {LEASE_COLS} FROM leases WHERE scope = ?1 AND work = ?2 \
             ORDER BY fence DESC LIMIT 1"
        );
        self.one(&sql, [scope, work], lease_row)
    }

    fn work_leases(&self, scope: &str, work: &str) -> Result<Vec<LeaseRow>> {
        let sql = format!(
            "SELECT {LEASE_COLS} FROM leases WHERE scope = ?1 AND work = ?2 ORDER BY fence"
        );
        self.all(&sql, [scope, work], lease_row)
    }

    fn leases(&self, q: &LeaseQuery) -> Result<Vec<LeaseRow>> {
        let sql = format!(
            "SELECT {LEASE_COLS} FROM leases WHERE (?1 IS NULL OR scope = ?1) \
             AND (?2 IS NULL OR state = ?2) ORDER BY scope, work, fence LIMIT ?3"
        );
        let state = q.state.map(LeaseState::as_str);
        self.all(&sql, params![q.scope, state, sql_i64(q.limit)], lease_row)
    }

    fn expired_leases(&self, now: i64) -> Result<Vec<LeaseRow>> {
        let sql = format!(
            "SELECT {LEASE_COLS} FROM leases WHERE state = 'active' AND expires_at <= ?1 \
             ORDER BY scope, work, fence"
        );
        self.all(&sql, [now], lease_row)
    }

    fn lease_counts(&self, now: i64) -> Result<LeaseCounts> {
        let sql = "SELECT COUNT(*) FILTER (WHERE state = 'active' AND expires_at > ?1), \
                   COUNT(*) FILTER (WHERE state = 'active' AND expires_at <= ?1), \
                   COUNT(*) FILTER (WHERE state = 'abandoned') FROM leases";
        let counts = self.one(sql, [now], |r| {
            let n = |i| r.get::<_, i64>(i).map(|v| u64::try_from(v).unwrap_or(0));
            Ok(LeaseCounts { active: n(0)?, expired: n(1)?, abandoned: n(2)? })
        })?;
        Ok(counts.unwrap_or_default())
    }

    fn for_each_lease(&self, f: &mut dyn FnMut(LeaseRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {LEASE_COLS} FROM leases ORDER BY scope, work, fence");
        self.stream(&sql, &[], lease_row, f)
    }

    fn plans(&self, scope: &str, work: &str) -> Result<Vec<PlanRow>> {
        let sql = format!(
            "SELECT {PLAN_COLS} FROM plans WHERE scope = ?1 AND work = ?2 ORDER BY version"
        );
        self.all(&sql, [scope, work], plan_row)
    }

    fn for_each_plan(&self, f: &mut dyn FnMut(PlanRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {PLAN_COLS} FROM plans ORDER BY scope, work, version");
        self.stream(&sql, &[], plan_row, f)
    }

    fn step(&self, lease_id: &str, step: &str) -> Result<Option<StepRow>> {
        let sql = format!("SELECT {STEP_COLS} FROM steps WHERE lease_id = ?1 AND step = ?2");
        self.one(&sql, [lease_id, step], step_row)
    }

    fn work_steps(&self, scope: &str, work: &str) -> Result<Vec<StepRow>> {
        let sql =
            format!("SELECT {STEP_COLS} FROM steps WHERE scope = ?1 AND work = ?2 ORDER BY id");
        self.all(&sql, [scope, work], step_row)
    }

    fn for_each_step(&self, f: &mut dyn FnMut(StepRow) -> Flow) -> Result<()> {
        let sql = format!("SELECT {STEP_COLS} FROM steps ORDER BY id");
        self.stream(&sql, &[], step_row, f)
    }

    fn insert_lease(&mut self, l: &LeaseRow) -> Result<()> {
        let sql = format!(
            "INSERT INTO leases ({LEASE_COLS}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
        );
        self.exec(
            &sql,
            params![
                l.id,
                l.scope,
                l.work,
                sql_i64(l.fence),
                l.holder,
                l.state.as_str(),
                l.ttl,
                l.acquired_at,
                l.expires_at,
                sql_i64(l.heartbeats),
                l.heartbeat_at,
                l.details,
                l.ended_at,
                l.result,
                l.pruned_at
            ],
        )?;
        Ok(())
    }

    fn update_lease(&mut self, l: &LeaseRow) -> Result<()> {
        self.exec(
            "UPDATE leases SET state = ?2, expires_at = ?3, heartbeats = ?4, heartbeat_at = ?5, \
             details = ?6, ended_at = ?7, result = ?8 WHERE id = ?1",
            params![
                l.id,
                l.state.as_str(),
                l.expires_at,
                sql_i64(l.heartbeats),
                l.heartbeat_at,
                l.details,
                l.ended_at,
                l.result
            ],
        )?;
        Ok(())
    }

    fn insert_plan(&mut self, p: &PlanRow) -> Result<()> {
        let sql = format!("INSERT INTO plans ({PLAN_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        self.exec(
            &sql,
            params![
                p.scope,
                p.work,
                sql_i64(p.version),
                p.lease_id,
                p.steps_json,
                p.committed_at,
                p.pruned_at
            ],
        )?;
        Ok(())
    }

    fn insert_step(&mut self, s: &StepRow) -> Result<()> {
        let sql =
            format!("INSERT INTO steps ({STEP_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
        self.exec(
            &sql,
            params![
                s.scope,
                s.work,
                s.lease_id,
                s.step,
                s.planned,
                s.executed,
                s.gate,
                s.recorded_at,
                s.pruned_at
            ],
        )?;
        Ok(())
    }
}
