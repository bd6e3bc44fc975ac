//! Throwaway PostgreSQL clusters of the test's own (scripts/pg-cluster.sh), for the tests that
//! restart, stop, replicate or reconfigure one: never the suite's shared server.

use std::path::Path;
use std::process::{Command, Output};

/// A cluster on loopback, stopped and removed when dropped.
pub struct Cluster {
    dir: tempfile::TempDir,
    pub url: String,
}

fn script(args: &[&str], opts: &str) -> Output {
    script_env(args, opts, "")
}

fn script_env(args: &[&str], opts: &str, env: &str) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pg-cluster.sh");
    Command::new(script)
        .env("PG_CLUSTER_OPTS", opts)
        .env("PG_CLUSTER_ENV", env)
        .args(args)
        .output()
        .expect("pg-cluster.sh runs")
}

/// A directory the cluster's owner (`postgres` when the tests run as root) can enter.
fn shared_tempdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let _ = Command::new("chmod").args(["755", dir.path().to_str().unwrap()]).status();
    dir
}

impl Cluster {
    /// Starts one with `opts` (more `-c name=value` settings); `None` where PostgreSQL is not
    /// installed and LOCKER_SKIP_INTEROP=1 (elsewhere a missing PostgreSQL fails the test).
    pub fn start(opts: &str) -> Option<Self> {
        Self::start_env(opts, "")
    }

    /// [`Cluster::start`] with `env` (`NAME=VALUE` words) in the server's environment.
    pub fn start_env(opts: &str, env: &str) -> Option<Self> {
        let dir = shared_tempdir();
        let out = script_env(&["start", dir.path().to_str().unwrap()], opts, env);
        if out.status.code() == Some(3)
            && std::env::var("LOCKER_SKIP_INTEROP").is_ok_and(|v| v == "1")
        {
            return None;
        }
        assert!(out.status.success(), "pg-cluster.sh start: {out:?}");
        let url = String::from_utf8(out.stdout).unwrap().trim().to_owned();
        Some(Self { dir, url })
    }

    /// A streaming standby of this cluster (pg_basebackup), started.
    pub fn standby(&self) -> Self {
        let dir = shared_tempdir();
        let out = script(
            &["standby", dir.path().to_str().unwrap(), self.dir.path().to_str().unwrap()],
            "",
        );
        assert!(out.status.success(), "pg-cluster.sh standby: {out:?}");
        let url = String::from_utf8(out.stdout).unwrap().trim().to_owned();
        Self { dir, url }
    }

    /// `pg-cluster.sh CMD` on this cluster (`restart`, `down`, `up`, `promote`).
    pub fn run(&self, cmd: &str) {
        let out = script(&[cmd, self.dir.path().to_str().unwrap()], "");
        assert!(out.status.success(), "pg-cluster.sh {cmd}: {out:?}");
    }

    /// `host:port` of this cluster.
    pub fn host_port(&self) -> &str {
        let rest = self.url.split_once("@").map_or(self.url.as_str(), |(_, r)| r);
        rest.split('/').next().unwrap_or(rest)
    }

    /// A client of the cluster's `postgres` database, as its superuser.
    pub fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url, postgres::NoTls).expect("the cluster answers")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = script(&["stop", self.dir.path().to_str().unwrap()], "");
    }
}
