//! `locker store copy`: moves a repository between stores (SQLite ⇄ PostgreSQL) row for row,
//! so that every chain, hash and journal entry is unchanged, and verifies the copy before it
//! is kept.
//!
//! The copy is written in one group (one write transaction on the destination, holding its
//! write lock) and verified inside that same transaction: a copy that does not verify, or
//! whose journal head differs from the source's, is rolled back and leaves nothing behind.

use std::fs;
use std::os::unix::fs::DirBuilderExt as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::domain::digest::Digest;
use crate::domain::secret::random_id;
use crate::ops::verify::{self, RepoReport};
use crate::ops::{Actor, Clock, Ctx, ErrorKind, OpError, OpResult, Progress};
use crate::repo::{self, Config, Repo, CONFIG_FILE, DB_FILE, DOT_LOCKER, OBJECTS_DIR};
use crate::store::{self, Flow, Maintenance as _, SignerRow, Store, StoreError, StoreUrl, Tx};

/// What was copied.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CopyOutcome {
    /// The source store (a URL never carries a password).
    pub from: String,
    /// The destination: a PostgreSQL URL, or the directory now holding `.locker/`.
    pub to: String,
    pub repository_id: String,
    /// The journal head, identical in both stores.
    pub journal_entries: u64,
    pub head: Digest,
    pub rows: CopiedRows,
    /// Always `true`: a copy that does not verify is not kept.
    pub verified: bool,
}

/// Rows copied, by kind.
#[derive(Debug, Clone, Copy, Default, Serialize, schemars::JsonSchema)]
pub struct CopiedRows {
    pub journal: u64,
    pub pads: u64,
    pub blocks: u64,
    pub tickets: u64,
    pub agents: u64,
    pub blobs: u64,
    pub artifact_versions: u64,
    pub artifact_heads: u64,
    pub receipts: u64,
    pub leases: u64,
    pub plans: u64,
    pub steps: u64,
    pub payments: u64,
    pub merkle_hashes: u64,
    pub checkpoints: u64,
    pub agent_keys: u64,
    pub settings: u64,
}

/// Copies every row of `src` into `dst` (an empty store) inside `dst`'s transaction;
/// `progress` hears of the bulk of it, the journal's entries and the pads' blocks.
// The closure each row's copy runs in gives its `?` a scope inside the streaming callback.
#[allow(clippy::redundant_closure_call)]
pub fn copy_rows(
    src: &dyn Tx,
    dst: &mut dyn Tx,
    progress: &dyn Progress,
) -> Result<CopiedRows, StoreError> {
    let counts = src.counts()?;
    let mut n = CopiedRows::default();
    let mut err: Option<StoreError> = None;
    macro_rules! each {
        ($iter:ident, $count:ident, |$row:ident| $body:expr) => {{
            src.$iter(&mut |$row| match (|| -> Result<(), StoreError> { $body })() {
                Ok(()) => {
                    n.$count += 1;
                    Flow::Continue(())
                }
                Err(e) => {
                    err = Some(e);
                    Flow::Break(())
                }
            })?;
            if let Some(e) = err.take() {
                return Err(e);
            }
        }};
    }
    progress.start("copying the journal", counts.journal, "entries");
    each!(for_each_journal, journal, |r| {
        progress.advance(1);
        dst.insert_journal(&r)
    });
    each!(for_each_pad, pads, |p| dst.insert_pad(&p));
    let mut pads = Vec::new();
    src.for_each_pad(&mut |p| {
        pads.push(p.id);
        Flow::Continue(())
    })?;
    if counts.blocks > 0 {
        progress.start("copying pads", counts.blocks, "blocks");
    }
    for id in &pads {
        src.for_each_block(id, &mut |b| match dst.insert_block(&b) {
            Ok(()) => {
                n.blocks += 1;
                progress.advance(1);
                Flow::Continue(())
            }
            Err(e) => {
                err = Some(e);
                Flow::Break(())
            }
        })?;
        if let Some(e) = err.take() {
            return Err(e);
        }
    }
    progress.start("copying the rest", 0, "");
    each!(for_each_ticket, tickets, |t| dst.insert_ticket(&t));
    each!(for_each_agent, agents, |a| dst.insert_agent(&a));
    each!(for_each_blob, blobs, |b| {
        let bytes = src
            .blob(&b.digest)?
            .ok_or_else(|| StoreError::Corrupt(format!("blob {} vanished", b.digest)))?;
        if Digest::of(&bytes) != b.digest {
            return Err(StoreError::Corrupt(format!(
                "blob {} does not match its digest in the source; run `locker verify`",
                b.digest
            )));
        }
        dst.put_blob(&b.digest, &bytes, b.created_at)
    });
    each!(for_each_artifact_version, artifact_versions, |v| dst.insert_artifact_version(&v));
    each!(for_each_artifact_head, artifact_heads, |h| dst.set_artifact_head(&h));
    each!(for_each_receipt, receipts, |r| dst.insert_receipt(&r));
    each!(for_each_lease, leases, |l| dst.insert_lease(&l));
    each!(for_each_plan, plans, |p| dst.insert_plan(&p));
    each!(for_each_step, steps, |s| dst.insert_step(&s));
    each!(for_each_payment, payments, |p| dst.insert_payment(&p));
    each!(for_each_checkpoint, checkpoints, |c| dst.insert_checkpoint(&c));
    each!(for_each_agent_key, agent_keys, |k| dst.insert_agent_key(&k));
    each!(for_each_setting, settings, |s| dst.set_setting(&s.0, &s.1));
    // The log's key carries over (a host without it checks the copied checkpoints with it);
    // the turn to sign does not: the copy's first signer takes a new one.
    if let Some(s) = src.log_signer()? {
        dst.set_log_signer(&SignerRow { expires_at: 0, ..s })?;
    }
    let mut batch = Vec::new();
    let mut start = 0;
    src.for_each_merkle_hash(&mut |i, h| {
        if batch.is_empty() {
            start = i;
        }
        if i != start + batch.len() as u64 {
            err = Some(StoreError::Corrupt(format!("the Merkle hashes skip position {i}")));
            return Flow::Break(());
        }
        batch.push(h);
        if batch.len() == 1024 {
            if let Err(e) = dst.insert_merkle_hashes(start, &batch) {
                err = Some(e);
                return Flow::Break(());
            }
            n.merkle_hashes += batch.len() as u64;
            batch.clear();
        }
        Flow::Continue(())
    })?;
    if let Some(e) = err.take() {
        return Err(e);
    }
    if !batch.is_empty() {
        dst.insert_merkle_hashes(start, &batch)?;
        n.merkle_hashes += batch.len() as u64;
    }
    Ok(n)
}

/// Copies `src` into the empty store `dst` in one transaction, verifies the copy inside it, and
/// commits only a verified copy whose journal head is the source's.
fn copy_into(
    src: &mut dyn Store,
    dst: &mut dyn Store,
    clock: &dyn Clock,
    progress: &dyn Progress,
) -> OpResult<(CopiedRows, RepoReport, u64, Digest)> {
    let src_tx = src.read()?;
    let Some(head) = src_tx.journal_head()? else {
        return Err(OpError::internal("the source repository has an empty journal"));
    };
    let mut group = dst.group()?;
    let rows = {
        let mut tx = group.store().write()?;
        if tx.journal_head()?.is_some() {
            return Err(OpError::new(
                ErrorKind::Conflict,
                "destination_not_empty",
                "the destination store already holds a repository; nothing was copied",
            )
            .hint("Copy into a new, empty database (CREATE DATABASE …) or a new directory."));
        }
        let rows = copy_rows(src_tx.as_ref(), tx.as_mut(), progress)?;
        tx.commit()?;
        rows
    };
    drop(src_tx);
    let report = {
        let mut ctx = Ctx::new(group.store(), Actor::operator(), clock);
        verify::repository(&mut ctx, Some(head.hash), progress)?
    };
    let copied_head = group.store().read()?.journal_head()?;
    if !report.ok || copied_head != Some(head) {
        let first = report.problems.first().map_or_else(String::new, |p| format!(": {p:?}"));
        return Err(OpError::new(
            ErrorKind::Internal,
            "copy_unverified",
            format!("the copy did not verify, so nothing was kept{first}"),
        )
        .hint("Run `locker verify` on the source repository first."));
    }
    group.commit()?;
    Ok((rows, report, head.seq, head.hash))
}

fn io_err(what: &Path) -> impl FnOnce(std::io::Error) -> OpError + '_ {
    move |e| OpError::unavailable(format!("{}: {e}", what.display()))
}

/// Copies the repository `repo` to `to`: a PostgreSQL database (`postgres://…`, empty), or a
/// new directory that will hold a SQLite repository's `.locker/`. `progress` hears of the
/// rows copied and of the copy's verification.
pub fn copy(
    repo: &mut Repo,
    to: &StoreUrl,
    clock: &dyn Clock,
    progress: &dyn Progress,
) -> OpResult<CopyOutcome> {
    let from = repo.config.store.clone();
    let repository_id = repo.config.repository_id.clone();
    let (rows, _report, seq, head, to_display) = if to.is_postgres() {
        if to.url == repo.config.store {
            return Err(OpError::usage("the destination is the repository's own store"));
        }
        let mut dst = store::create_shared(to)?;
        let (rows, report, seq, head) =
            copy_into(repo.store.as_mut(), dst.as_mut(), clock, progress)?;
        (rows, report, seq, head, to.url.clone())
    } else {
        let dest = std::path::absolute(Path::new(&to.url)).map_err(io_err(Path::new(&to.url)))?;
        let (rows, report, seq, head) = copy_to_dir(repo, &dest, clock, progress)?;
        (rows, report, seq, head, dest.display().to_string())
    };
    Ok(CopyOutcome {
        from,
        to: to_display,
        repository_id,
        journal_entries: seq,
        head,
        rows,
        verified: true,
    })
}

/// Copies into a new SQLite repository in `dest` (absent or empty), assembled in a temporary
/// sibling directory and renamed into place once verified.
fn copy_to_dir(
    repo: &mut Repo,
    dest: &Path,
    clock: &dyn Clock,
    progress: &dyn Progress,
) -> OpResult<(CopiedRows, RepoReport, u64, Digest)> {
    let dot = dest.join(DOT_LOCKER);
    if fs::symlink_metadata(&dot).is_ok() {
        return Err(OpError::new(
            ErrorKind::Conflict,
            "destination_not_empty",
            format!("{} already holds a repository; nothing was copied", dest.display()),
        ));
    }
    fs::create_dir_all(dest).map_err(io_err(dest))?;
    let tmp: PathBuf = dest.join(format!(".locker.copy-{}", random_id()));
    let result = (|| {
        fs::DirBuilder::new().mode(0o700).create(&tmp).map_err(io_err(&tmp))?;
        fs::DirBuilder::new().mode(0o700).create(tmp.join(OBJECTS_DIR)).map_err(io_err(&tmp))?;
        let config = Config {
            format: repo::FORMAT,
            repository_id: repo.config.repository_id.clone(),
            created_at: repo.config.created_at,
            store: format!("sqlite:{DB_FILE}"),
            store_password_file: None,
            origin: repo.config.origin.clone(),
        };
        let mut json = serde_json::to_vec_pretty(&config).expect("config serialises");
        json.push(b'\n');
        repo::write_new_file(&tmp.join(CONFIG_FILE), &json)?;
        // The log's signing key goes with it, so that its checkpoints still verify.
        let key = repo.dot.join(repo::KEYS_DIR).join(repo::LOG_KEY_FILE);
        match fs::read(&key) {
            Ok(bytes) => {
                fs::DirBuilder::new()
                    .mode(0o700)
                    .create(tmp.join(repo::KEYS_DIR))
                    .map_err(io_err(&tmp))?;
                repo::write_new_file(&tmp.join(repo::KEYS_DIR).join(repo::LOG_KEY_FILE), &bytes)?;
                // And its high-water mark, read before the copy's snapshot (never ahead of it).
                if let Some(m) = repo::mark::load(&repo.dot)? {
                    let mark = tmp.join(repo::KEYS_DIR).join(repo::mark::MARK_FILE);
                    repo::write_new_file(&mark, m.note.as_bytes())?;
                }
            }
            Err(_) => repo::create_log_key(&tmp, &config.origin())?,
        }
        let mut dst = store::sqlite::create(&tmp.join(DB_FILE))?;
        dst.settle_on_close()?;
        let out = copy_into(repo.store.as_mut(), &mut dst, clock, progress)?;
        drop(dst);
        repo::sync_dir(&tmp)?;
        fs::rename(&tmp, &dot).map_err(io_err(&dot))?;
        repo::sync_dir(dest)?;
        Ok(out)
    })();
    if fs::symlink_metadata(&tmp).is_ok() {
        let _ = fs::remove_dir_all(&tmp);
    }
    result
}
