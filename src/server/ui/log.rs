//! `/ui/log`: the transparency log (the latest checkpoint and its signatures: the log's and the
//! witnesses' cosignatures, the newest checkpoints) and the whole repository's verification.

use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;

use super::html::{Html, Nav, Tone};
use super::{page, verified_cache, AppState};
use crate::api::{Locker as _, VerifyRepository};
use crate::domain::note::{Note, Verifier};
use crate::ops::log::CheckpointOutcome;
use crate::ops::verify::RepoReport;
use crate::ops::{self, disclose, Actor, NoProgress, OpResult};

/// How long a verification is shown before the next visit runs it again.
const VERIFY_FRESH: Duration = Duration::from_secs(30);
/// Checkpoints the page lists.
const RECENT: usize = 20;

/// One signature line of a checkpoint's note.
#[derive(Debug, Clone)]
pub(super) struct Signature {
    pub name: String,
    pub key_id: String,
    /// The log's own signature (its key's name and id).
    pub log: bool,
    /// A cosignature's time (C2SP `cosignature/v1`: the first 8 bytes, big-endian seconds).
    pub time: Option<i64>,
}

/// The signature lines of a checkpoint's note, in order.
pub(super) fn signatures(cp: &CheckpointOutcome) -> Vec<Signature> {
    let Ok(note) = Note::parse(cp.note.as_bytes()) else { return Vec::new() };
    let log = Verifier::parse(&cp.key).ok();
    note.signatures
        .iter()
        .map(|s| {
            let is_log = log.as_ref().is_some_and(|v| v.name == s.name && v.id == s.id);
            let time = (!is_log && s.sig.len() == 72)
                .then(|| <[u8; 8]>::try_from(&s.sig[..8]).ok())
                .flatten()
                .and_then(|b| i64::try_from(u64::from_be_bytes(b)).ok());
            Signature {
                name: s.name.clone(),
                key_id: s.id.iter().map(|b| format!("{b:02x}")).collect(),
                log: is_log,
                time,
            }
        })
        .collect()
}

/// The operator's verification of the whole repository: the one made in the last
/// [`VERIFY_FRESH`], or a new one.
async fn verified(s: &AppState) -> OpResult<(i64, RepoReport)> {
    let ui = verified_cache(s);
    if let Ok(v) = ui.lock() {
        if let Some((made, at, r)) = v.as_ref().filter(|(made, ..)| made.elapsed() < VERIFY_FRESH) {
            let _ = made;
            return Ok((*at, r.clone()));
        }
    }
    let at = s.now();
    let report = s
        .run(Actor::operator(), |ctx| ctx.verify(VerifyRepository::default(), &NoProgress))
        .await?;
    if let Ok(mut v) = ui.lock() {
        *v = Some((Instant::now(), at, report.clone()));
    }
    Ok((at, report))
}

/// `GET /ui/log`.
pub async fn log(State(s): State<AppState>, headers: HeaderMap) -> Response {
    // Only for someone the view shows pages to: a bad token starts no verification.
    if let Err(r) = super::admitted(&s, &headers).await {
        return r;
    }
    s.caught_up().await;
    let report = verified(&s).await;
    page(&s, &headers, Nav::Log, move |ctx| {
        let mut b = Html::new();
        checkpoints(ctx, &mut b)?;
        b.m("<section><h2>Verification</h2>");
        match report {
            Ok((at, r)) => verification(&mut b, at, &disclose::report(&ctx.actor, r)),
            Err(e) => {
                b.m("<p class=\"error\">verify failed: ").t(&e.detail).m("</p>");
            }
        }
        b.m("</section>");
        Ok(("Log".to_owned(), b))
    })
    .await
}

/// The latest checkpoint, its signatures, and the newest checkpoints.
fn checkpoints(ctx: &mut ops::Ctx<'_>, b: &mut Html) -> OpResult<()> {
    b.m("<section><h2>Latest checkpoint</h2>");
    let cp = match ctx.checkpoint() {
        Ok(cp) => cp,
        Err(e) => {
            b.m("<p class=\"muted\">No checkpoint: ").t(&e.detail).m("</p></section>");
            return Ok(());
        }
    };
    let log_ok = Verifier::parse(&cp.key)
        .ok()
        .zip(Note::parse(cp.note.as_bytes()).ok())
        .is_some_and(|(v, n)| n.verify(&v).is_ok());
    b.m("<dl>").pair("origin", &cp.origin).pair("tree size", cp.size);
    b.dt("root").hash_full(&cp.root).dd_end();
    b.dt("signed").time(cp.signed_at).dd_end();
    b.dt("log signature").verdict(log_ok).m(" by ").el("<code>", &cp.key, "</code>").dd_end();
    b.m("</dl>");
    let sigs = signatures(&cp);
    let witnesses: Vec<&Signature> = sigs.iter().filter(|s| !s.log).collect();
    b.m("<h3>Witness cosignatures</h3>");
    if witnesses.is_empty() {
        b.m("<p>")
            .badge(Tone::Plain, "none")
            .m(" No witness has cosigned this checkpoint ")
            .m("(<code>locker serve --witness URL</code> asks one).</p>");
    } else {
        b.m("<p class=\"muted\">Counted against a witness policy by <code>locker verify ")
            .m("--policy</code>, which holds the witnesses' keys.</p>")
            .m("<table><thead><tr><th>Witness</th><th>Key id</th><th>Cosigned at</th></tr>")
            .m("</thead><tbody>");
        for w in witnesses {
            b.m("<tr>").td(&w.name).el("<td><code>", &w.key_id, "</code></td>").m("<td>");
            b.time_opt(w.time).m("</td></tr>");
        }
        b.m("</tbody></table>");
    }
    b.m("<details><summary>The signed note</summary><pre>").t(&cp.note).m("</pre></details>");
    b.m("</section>");

    let log = ctx.log()?;
    let recent = ops::log::checkpoint::recent(ctx, log, RECENT)?;
    b.m("<section><h2>Newest checkpoints</h2><div class=\"scroll\"><table><thead><tr>").m(
        "<th>Tree size</th><th>Root</th><th>Signed</th><th>Cosigned by</th></tr></thead><tbody>",
    );
    for c in &recent {
        b.m("<tr>").td(c.size).m("<td>").hash(&c.root).m("</td><td>").time(c.signed_at);
        b.m("</td><td>");
        let names: Vec<String> =
            signatures(c).into_iter().filter(|s| !s.log).map(|s| s.name).collect();
        if names.is_empty() {
            b.m("<span class=\"muted\">—</span>");
        } else {
            b.t(names.join(", "));
        }
        b.m("</td></tr>");
    }
    b.m("</tbody></table></div></section>");
    Ok(())
}

/// The verification report: the verdict, each part's, and what is broken (named to the
/// operator only).
fn verification(b: &mut Html, at: i64, r: &RepoReport) {
    b.m("<p class=\"verdict\">").verdict(r.ok).m(" checked at ").time(at);
    b.m(" <span class=\"muted\">(re-run at most every ")
        .t(VERIFY_FRESH.as_secs())
        .m(" s)</span></p>");
    b.m("<div class=\"scroll\"><table><thead><tr><th>Part</th><th>Verdict</th><th>What was checked</th>")
        .m("</tr></thead><tbody>");
    let mut row = |name: &'static str, ok: bool, what: String| {
        b.m("<tr><td>").m(name).m("</td><td>").verdict(ok).m("</td>").td(what).m("</tr>");
    };
    let j = &r.journal;
    row("journal", j.ok, format!("{} entries, head #{}", j.entries, j.head_seq));
    let m = &r.merkle;
    row(
        "Merkle tree",
        m.ok,
        format!(
            "{} leaves, {} checkpoints, newest at size {}",
            m.leaves,
            m.checkpoints,
            m.latest_checkpoint.map_or("—".to_owned(), |s| s.to_string())
        ),
    );
    row("high-water mark", r.mark.ok, r.mark.detail.clone());
    let p = &r.pads;
    row("pads", p.ok, format!("{} pads, {} blocks, {} broken", p.checked, p.blocks, p.broken));
    row(
        "tickets",
        r.tickets.ok,
        format!("{} checked, {} broken", r.tickets.checked, r.tickets.broken),
    );
    row("agents", r.agents.ok, format!("{} checked, {} broken", r.agents.checked, r.agents.broken));
    row("blobs", r.blobs.ok, format!("{} checked, {} broken", r.blobs.checked, r.blobs.broken));
    let a = &r.artifacts;
    row(
        "artifacts",
        a.ok,
        format!(
            "{} keys, {} versions, {} receipts, {} broken",
            a.keys, a.versions, a.receipts, a.broken
        ),
    );
    let l = &r.leases;
    row(
        "leases",
        l.ok,
        format!("{} leases, {} plans, {} steps, {} broken", l.leases, l.plans, l.steps, l.broken),
    );
    let sg = &r.signatures;
    row(
        "signatures",
        sg.ok,
        format!("{} signed, {} unsigned, {} broken", sg.signed, sg.unsigned, sg.broken),
    );
    b.m("</tbody></table></div>");
    if !r.problems.is_empty() {
        b.m("<h3>Problems (").t(r.problem_count).m(")</h3><ul class=\"problems\">");
        for p in &r.problems {
            b.m("<li>").t(&p.kind).m(" ").t(&p.subject);
            if let Some(seq) = p.seq {
                b.m(" (entry ").t(seq).m(")");
            }
            b.m(": ").t(&p.detail).m("</li>");
        }
        b.m("</ul>");
    }
}
