// A fenced lease over HTTP: worker A stalls, worker B takes over, A's late writes are refused.
//
// Worker A leases a work item (fencing token 1), commits a plan, logs a step and stops
// heartbeating. While its lease lives, B is refused (409 `lease_held`). Once it has expired, B's
// acquire abandons it and gets fencing token 2. When A wakes up, its heartbeat and steps are
// refused (410 `gone`) and a publish fenced with its token 1 is refused as stale (409
// `stale_fence`), even against the right version; B's publish under token 2 goes through.
//
//   node dist/fenced_lease.js --url http://127.0.0.1:8000 --token-a TOKEN --token-b TOKEN

import { type ErrorBody, Failed, Locker, type Reply, check, config, isError, main, runId } from "./locker.js";

interface Lease { lease_id: string; work: string; fence: number; holder: string; state: string; expires_at: number }
interface Diff { clean: boolean; holes: string[]; extras: string[] }
interface Completed extends Lease { diff: Diff }
interface Plan { version: number; steps: string[] }
interface Step { step: string; fence: number }
interface Artifact { version: number; content: string }
interface Published { artifact: Artifact; replayed: boolean }
interface Ledger { integrity: string; entries: { kind: string }[] }

const RUN = runId();
const WORK = `examples/typescript/build-${RUN}`;
const KEY = `examples/typescript/result-${RUN}.txt`;
const PLAN = ["fetch", "build", "publish"];
// A's lease is short so that the example does not wait long for it to expire. Expiry is checked
// in whole seconds, so a TTL of N seconds lasts at least N-1: keep it above 1.
const A_TTL = 3;

function acquire(server: Locker, ttl: number): Promise<Reply<unknown>> {
  return server.call("POST", "/lease", { body: { work_ref: WORK, ttl } });
}

function step(server: Locker, lease: Lease, name: string, executed: string): Promise<Reply<unknown>> {
  return server.call("POST", "/event", { body: { work_ref: WORK, lease: lease.lease_id, step: name, executed } });
}

function fencedPublish(server: Locker, fence: number, expected: number, opId: string, content: string): Promise<Reply<unknown>> {
  // `fence` ("WORK:TOKEN") needs locker's own request shape, `format=locker`.
  const body = { key: KEY, expected_version: expected, operation_id: opId, content, fence: `${WORK}:${fence}` };
  return server.call("POST", "/v1/artifact", { query: { format: "locker" }, body });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** B waits for A's lease to expire (the refusal says when), then acquires it. */
async function takeOver(b: Locker, held: ErrorBody): Promise<Lease> {
  let expiresAt = Number(held["expires_at"]);
  const deadline = expiresAt + 10;
  for (;;) {
    await sleep(Math.max(0, expiresAt * 1000 - Date.now()) + 50);
    const r = await acquire(b, 60);
    if (r.status === 200) return r.body as Lease;
    if (!isError(r, 409, "lease_held") || Date.now() / 1000 > deadline) {
      throw new Failed(`B's acquire after A's expiry answered ${r.status}: ${JSON.stringify(r.body)}`);
    }
    expiresAt = Number(r.body["expires_at"]); // not yet expired by the server's clock
  }
}

await main(async () => {
  const cfg = config(2);
  const a = new Locker(cfg.url, cfg.tokenA);
  const b = new Locker(cfg.url, cfg.tokenB);

  const acquired = await acquire(a, A_TTL);
  const leaseA = acquired.body as Lease;
  check(acquired.status === 200 && leaseA.fence === 1 && leaseA.state === "active", `A's acquire: ${JSON.stringify(acquired)}`);
  console.log(`A: leased ${WORK} (fencing token 1, holder ${leaseA.holder}, ttl ${A_TTL} s)`);
  const plan = await a.expect<Plan>(200, "POST", "/manifest", { body: { work_ref: WORK, lease: leaseA.lease_id, steps: PLAN } });
  check(plan.version === 1 && plan.steps.join() === PLAN.join(), `A's plan: ${JSON.stringify(plan)}`);
  const fetched = await step(a, leaseA, "fetch", "cloned the inputs");
  check(fetched.status === 200 && (fetched.body as Step).fence === 1, `A's step: ${JSON.stringify(fetched)}`);
  console.log(`A: committed the plan ${JSON.stringify(PLAN)} and logged 'fetch'`);

  // The lease is exclusive: B is refused while A's lives, and told who holds it until when.
  const held = await b.refused(409, "lease_held", "POST", "/lease", { body: { work_ref: WORK, ttl: 60 } });
  check(held["holder"] === leaseA.holder && held["fence"] === 1, `the refusal names ${JSON.stringify(held)}`);
  console.log(`B: refused (409 lease_held): ${leaseA.holder} holds it until ${String(held["expires_at"])}`);

  // A stalls: no heartbeat. B waits for the expiry and takes over.
  const leaseB = await takeOver(b, held);
  check(leaseB.fence === 2 && leaseB.holder !== leaseA.holder, `B's lease after the takeover: ${JSON.stringify(leaseB)}`);
  console.log(`B: A's lease expired; B leased ${WORK} with fencing token 2`);

  // A wakes up. Everything it tries under its old lease is refused and changes nothing.
  const hb = await a.refused(410, "gone", "POST", "/heartbeat", { body: { work_ref: WORK, lease: leaseA.lease_id } });
  check(hb["state"] === "abandoned" && hb["current_fence"] === 2, `the refusal says ${JSON.stringify(hb)}`);
  const late = await step(a, leaseA, "build", "built it anyway");
  check(isError(late, 410, "gone"), `A's late step: ${JSON.stringify(late)}`);
  console.log("A: heartbeat and step refused (410 gone): the lease was abandoned, fence 2 holds");

  const current = await a.call("GET", "/v1/artifact", { query: { key: KEY, format: "locker" } });
  check(current.status === 404, `${KEY} should not exist yet: ${JSON.stringify(current)}`);
  const stale = await fencedPublish(a, 1, 0, `a-${RUN}`, "result from A\n");
  check(isError(stale, 409, "stale_fence") && stale.body["current_fence"] === 2, `A's publish under fence 1: ${JSON.stringify(stale)}`);
  console.log("A: publish with fencing token 1, against the right version: refused (409 stale_fence)");

  const published = await fencedPublish(b, 2, 0, `b-${RUN}`, "result from B\n");
  check(published.status === 200 && (published.body as Published).artifact.version === 1, `B's publish: ${JSON.stringify(published)}`);
  console.log(`B: published ${KEY} v1 under fencing token 2`);
  for (const name of PLAN) {
    const logged = await step(b, leaseB, name, "done");
    check(logged.status === 200 && (logged.body as Step).fence === 2, `B's step ${name}: ${JSON.stringify(logged)}`);
  }
  const done = await b.expect<Completed>(200, "POST", "/complete", {
    body: { work_ref: WORK, lease: leaseB.lease_id, result: "published v1" },
  });
  check(done.state === "completed" && done.diff.clean && done.diff.holes.length === 0, `B's completion: ${JSON.stringify(done)}`);
  console.log(`B: logged ${JSON.stringify(PLAN)} and completed the lease; the plan diff is clean`);

  const ledger = await b.expect<Ledger>(200, "GET", "/ledger", { query: { work: WORK } });
  const kinds = ledger.entries.map((e) => e.kind);
  check(ledger.integrity === "ok" && kinds.includes("lease.abandon"), `the ledger: ${JSON.stringify(ledger)}`);
  const final = await b.expect<Artifact>(200, "GET", "/v1/artifact", { query: { key: KEY, format: "locker" } });
  check(final.version === 1 && final.content === "result from B\n", `${KEY}: ${JSON.stringify(final)}`);
  console.log(`ledger: integrity ok; ${kinds.join(", ")}`);
});
