// The web view (`locker serve`'s /ui/) in headless Chromium.
//
// Builds a fixture repository with the CLI (a sealed pad with blocks and tickets in every state,
// work items with a plan, a hole and an extra, artifacts with versions and a refused publish, a
// checkpoint cosigned by a `locker witness serve`, an agent with a token, and names that are
// HTML), starts `locker serve` on it, visits every page as the operator and then as the agent
// (signing in through the form), and checks that each page loads, shows the fixture's data,
// never shows a secret, runs no script, and logs no console error and no CSP violation. A PNG
// screenshot of each page is kept.
//
// Environment: LOCKER_BIN (default target/debug/locker), CHROMIUM (default /usr/bin/chromium),
// UI_SCREENSHOTS (default target/ui-screenshots). Run from the repository's root:
//   node tests/ui/check.mjs        (scripts/ui-check.sh builds locker and installs what it needs)

import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const locker = path.resolve(root, process.env.LOCKER_BIN || "target/debug/locker");
const browserPath = process.env.CHROMIUM || "/usr/bin/chromium";
const shots = path.resolve(root, process.env.UI_SCREENSHOTS || "target/ui-screenshots");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "locker-ui-"));
const repo = path.join(work, "repo");
const children = [];
const failures = [];

function fail(what) {
  failures.push(what);
  console.error(`  FAIL ${what}`);
}

/** `locker --json ARGS` on the fixture repository (as the agent with `token`). */
function cli(args, token) {
  const env = { ...process.env, LOCKER_DIR: repo, NO_COLOR: "1" };
  delete env.LOCKER_TOKEN;
  delete env.LOCKER_URL;
  if (token) env.LOCKER_TOKEN = token;
  const out = execFileSync(locker, ["--json", ...args], { env, encoding: "utf8" });
  return out.trim() ? JSON.parse(out) : null;
}

/** `locker ARGS` that is expected to fail (a refused publish). */
function cliFails(args) {
  try {
    cli(args);
  } catch {
    return;
  }
  throw new Error(`locker ${args.join(" ")} should have failed`);
}

/** Starts `locker ARGS` (a server) and resolves with its URL once it listens. */
function listen(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(locker, args, {
      env: { ...process.env, LOCKER_DIR: repo, NO_COLOR: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    children.push(child);
    let log = "";
    const timer = setTimeout(() => reject(new Error(`locker ${args[0]} did not start: ${log}`)), 20000);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d) => {
      log += d;
      const m = log.match(/locker listening on (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`locker ${args[0]} exited ${code}: ${log}`)));
  });
}

const ENVELOPE = JSON.stringify({
  schema: "locker.handoff.v1",
  task_id: "release-1.4",
  from_agent: "planner",
  to_agent: "worker-a",
  constraints: ["keep the changelog"],
  artifacts: [{ name: "notes.md" }],
  budget_usd: 2.5,
});
const XSS_WORK = "<script>alert(1)</script>";
const XSS_STEP = "<b>bold step</b>";

/** The fixture; returns what the pages must show and the secrets they must not. */
async function fixture() {
  fs.mkdirSync(repo);
  cli(["init", repo]);
  const token = cli(["token", "create", "--agent", "worker-a", "--scope", "demo"]).token;

  // A pad with an envelope and two blocks, three tickets (used, unlimited, revoked), sealed.
  const pad = cli(["pad", "create", "--ttl", "1d"]);
  cli(["append", pad.pad_id, "--key", pad.write_key, "-d", ENVELOPE, "--content-type", "application/json"]);
  cli(["append", pad.pad_id, "--key", pad.write_key, "-d", "notes, part 1", "--content-type", "text/plain"]);
  cli(["append", pad.pad_id, "--key", pad.write_key, "-d", "notes, part 2", "--content-type", "text/plain"]);
  const unlimited = cli(["pad", "ticket", pad.pad_id, "--key", pad.write_key, "--type", "read_unlimited"]);
  const revoked = cli(["pad", "ticket", pad.pad_id, "--key", pad.write_key]);
  cli(["pad", "revoke-ticket", pad.pad_id, revoked.ticket, "--key", pad.write_key]);
  cli(["pad", "read", pad.pad_id, "--ticket", pad.read_ticket]);
  cli(["seal", pad.pad_id, "--key", pad.write_key]);
  // The agent's own pad, in its scope.
  const agentPad = cli(["pad", "create"], token);

  // The agent's work item: planned draft, review, publish; took draft, publish and hotfix.
  const lease = cli(["lease", "acquire", "release-notes"], token);
  cli(["manifest", "commit", "release-notes", "--lease", lease.lease_id, "draft", "review", "publish"], token);
  for (const step of ["draft", "publish", "hotfix"]) {
    cli(["step", "release-notes", step, "--lease", lease.lease_id], token);
  }
  // The operator's, named in HTML, completed.
  const xss = cli(["lease", "acquire", XSS_WORK, "--holder", "planner"]);
  cli(["manifest", "commit", XSS_WORK, "--lease", xss.lease_id, XSS_STEP, "wrap up"]);
  cli(["step", XSS_WORK, XSS_STEP, "--lease", xss.lease_id]);
  cli(["step", XSS_WORK, "wrap up", "--lease", xss.lease_id]);
  cli(["lease", "complete", XSS_WORK, "--lease", xss.lease_id, "--result", "shipped"]);

  // Artifacts: two versions, a replayed retry and a refused stale publish; one in the agent's scope.
  cli(["artifact", "publish", "notes.md", "-d", "draft notes", "--expect", "0", "--op", "op-1"]);
  cli(["artifact", "publish", "notes.md", "-d", "final notes", "--expect", "1", "--op", "op-2"]);
  cli(["artifact", "publish", "notes.md", "-d", "final notes", "--expect", "1", "--op", "op-2"]);
  cliFails(["artifact", "publish", "notes.md", "-d", "stale", "--expect", "1", "--op", "op-3"]);
  cli(["artifact", "publish", "report.json", "-d", '{"ok":true}', "--expect", "0", "--op", "r-1"], token);

  // A witness cosigns the log's checkpoint.
  const vkey = cli(["key", "show"]).vkey;
  const wdir = path.join(work, "witness");
  cli(["witness", "init", wdir, "--name", "w1.example", "--log", vkey]);
  const witness = await listen(["witness", "serve", wdir, "--listen", "127.0.0.1:0"]);
  const cosigned = cli(["checkpoint", "--witness", witness]);
  if (!cosigned.all_cosigned) throw new Error(`the witness did not cosign: ${JSON.stringify(cosigned)}`);

  const uiToken = "ui-" + Buffer.from(os.hostname() + Date.now() + Math.random()).toString("base64url");
  const tokenFile = path.join(work, "ui-token");
  fs.writeFileSync(tokenFile, uiToken + "\n", { mode: 0o600 });
  return {
    pad,
    agentPad,
    token,
    uiToken,
    tokenFile,
    witness,
    secrets: [pad.write_key, pad.read_ticket, unlimited.ticket, revoked.ticket, unlimited.ticket_id, revoked.ticket_id, agentPad.write_key, agentPad.read_ticket, token, uiToken, lease.lease_id, xss.lease_id],
  };
}

/** Visits `url`, checks it, keeps a screenshot as NAME.png; returns the page's visible text. */
async function visit(page, log, base, name, url, expect, notExpect = []) {
  log.length = 0;
  const response = await page.goto(base + url, { waitUntil: "load" });
  const status = response ? response.status() : 0;
  const headers = response ? response.headers() : {};
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  const text = await page.innerText("body");
  const html = await page.content();
  const where = `${name} (${url})`;
  if (status !== 200) fail(`${where}: status ${status}`);
  const csp = headers["content-security-policy"] || "";
  if (!csp.includes("default-src 'none'")) fail(`${where}: no strict Content-Security-Policy`);
  if (headers["x-content-type-options"] !== "nosniff") fail(`${where}: no nosniff`);
  if (headers["cache-control"] !== "no-store") fail(`${where}: not no-store`);
  for (const e of expect) if (!text.includes(e)) fail(`${where}: does not show ${JSON.stringify(e)}`);
  // What must not be listed is looked for in the tables (the filter form names every kind).
  const tables = (await page.locator("table").allInnerTexts()).join("\n");
  for (const e of notExpect) if (tables.includes(e)) fail(`${where}: lists ${JSON.stringify(e)}`);
  for (const s of page.secrets) if (html.includes(s)) fail(`${where}: shows a secret (${s.slice(0, 6)}…)`);
  const scripts = await page.locator("script").count();
  if (scripts !== 0) fail(`${where}: has ${scripts} script elements`);
  const styled = await page.locator("link[rel=stylesheet]").count();
  if (styled !== 1) fail(`${where}: has ${styled} stylesheets`);
  // The stylesheet applied (the header is dark): it loaded under the CSP.
  const bg = await page.evaluate(() => getComputedStyle(document.querySelector("header")).backgroundColor);
  if (bg !== "rgb(22, 32, 46)") fail(`${where}: the stylesheet did not apply (header ${bg})`);
  await new Promise((r) => setTimeout(r, 50));
  for (const l of log) fail(`${where}: ${l}`);
  console.log(`  ok ${name.padEnd(22)} ${url}  →  ${path.relative(root, file)}`);
  return text;
}

async function main() {
  fs.rmSync(shots, { recursive: true, force: true });
  fs.mkdirSync(shots, { recursive: true });
  const started = Date.now();
  const fx = await fixture();
  const base = await listen(["serve", "--listen", "127.0.0.1:0", "--witness", fx.witness, "--ui-token-file", fx.tokenFile]);
  console.log(`ui-check: fixture in ${work}, locker serve at ${base}, Chromium ${browserPath}`);

  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "locker-ui-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: browserPath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = context.pages()[0] || (await context.newPage());
  page.secrets = fx.secrets;
  const log = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning" || /Content.Security.Policy/i.test(m.text())) {
      log.push(`console ${m.type()}: ${m.text()}`);
    }
  });
  page.on("pageerror", (e) => log.push(`page error: ${e.message}`));
  page.on("dialog", (d) => {
    log.push(`a dialog opened (a script ran): ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  page.on("requestfailed", (r) => log.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on("response", (r) => {
    if (r.status() >= 400) log.push(`response ${r.status()}: ${r.url()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });

  const pid = fx.pad.pad_id;
  const xss = encodeURIComponent(XSS_WORK);
  console.log("ui-check: as the operator (loopback, no token)");
  await visit(page, log, base, "01-overview", "/ui/", ["Overview", "Journal", "entries", "sealed", "active leases", "keys", "cosigned"]);
  await visit(page, log, base, "02-journal", "/ui/journal", ["pad.create", "lease.acquire", "worker-a", "artifact.reject", "redacted"]);
  await visit(page, log, base, "03-journal-filtered", "/ui/journal?kind=artifact.&scope=default", ["artifact.publish", "artifact.replay", "artifact.reject", "notes.md"], ["lease.acquire"]);
  await visit(page, log, base, "04-pads", "/ui/pads", [pid, "sealed", fx.agentPad.pad_id, "demo-pad-v1"]);
  await visit(page, log, base, "05-pad", `/ui/pads/${pid}`, ["Chain", "ok", "sealed", "application/json", "text/plain", "read_unlimited", "revoked", "read_once"]);
  await visit(page, log, base, "06-work", "/ui/work", ["release-notes", "worker-a", "demo", XSS_WORK, "planner", "completed", "active"]);
  await visit(page, log, base, "07-work-item", "/ui/work/release-notes?scope=demo", ["worker-a", "fence", "1 hole, 1 extra", "review", "hole", "hotfix", "extra", "draft", "done", "integrity"]);
  await visit(page, log, base, "08-work-item-html-names", `/ui/work/${xss}?scope=default`, [XSS_WORK, XSS_STEP, "clean", "shipped"]);
  await visit(page, log, base, "09-artifacts", "/ui/artifacts", ["notes.md", "report.json", "Scope default", "Scope demo"]);
  await visit(page, log, base, "10-artifact", "/ui/artifacts/notes.md?scope=default", ["Versions", "Receipts", "accepted", "replayed", "version_conflict", "op-2"]);
  await visit(page, log, base, "11-log", "/ui/log", ["Latest checkpoint", "w1.example", "Witness cosignatures", "Verification", "journal", "Merkle tree"]);
  // A phone's width: the layout reflows (the tables scroll on their own).
  await page.setViewportSize({ width: 390, height: 844 });
  await visit(page, log, base, "12-narrow-pad", `/ui/pads/${pid}`, ["Chain", "read_unlimited"]);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  if (wide > 400) fail(`12-narrow-pad: the page is ${wide} px wide on a 390 px screen`);
  await page.setViewportSize({ width: 1280, height: 900 });
  await visit(page, log, base, "13-login", "/ui/login", ["Sign in", "Token"]);

  console.log("ui-check: as the agent worker-a (signed in through the form)");
  await page.fill("#token", fx.token);
  await Promise.all([page.waitForURL(base + "/ui/"), page.click("button[type=submit]")]);
  await visit(page, log, base, "14-agent-overview", "/ui/", ["agent worker-a · scope demo", "sign out"]);
  await visit(page, log, base, "15-agent-pads", "/ui/pads", [fx.agentPad.pad_id], [pid]);
  await visit(page, log, base, "16-agent-work", "/ui/work", ["release-notes"], [XSS_WORK]);
  await visit(page, log, base, "17-agent-journal", "/ui/journal", ["an entry of another scope", "lease.acquire"]);
  const logout = await page.goto(base + "/ui/logout");
  if (logout.status() !== 200) fail(`logout: status ${logout.status()}`);
  await context.close();

  const pngs = fs.readdirSync(shots).filter((f) => f.endsWith(".png")).sort();
  console.log(`ui-check: ${pngs.length} screenshots in ${path.relative(root, shots)}/ (kept by CI as artifacts):`);
  for (const f of pngs) console.log(`  ${path.join(path.relative(root, shots), f)}`);
  console.log(`ui-check: ${failures.length ? `${failures.length} failures` : "every page passed"} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

try {
  await main();
} catch (e) {
  fail(e.stack || String(e));
} finally {
  for (const c of children) c.kill("SIGTERM");
  fs.rmSync(work, { recursive: true, force: true });
}
process.exit(failures.length ? 1 : 0);
