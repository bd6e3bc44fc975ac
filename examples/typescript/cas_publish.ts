// Compare-and-swap publish over HTTP: two writers race, the loser re-reads and retries.
//
// A publish names the version it read (`expected_version`, 0 to create) and an operation id. If
// another writer got there first, the server refuses it with 409 `version_conflict` and the
// current version; the writer re-reads, reapplies its edit and publishes again under a new
// operation id. Sending the very same publish again (same operation id) is safe: it returns the
// original result with `replayed: true` and writes nothing.
//
//   node dist/cas_publish.js --url http://127.0.0.1:8000 --token-a TOKEN --token-b TOKEN

import { Failed, Locker, type Reply, check, config, isError, main, runId } from "./locker.js";

interface Artifact { key: string; version: number; content: string; actor: string }
interface Published { artifact: Artifact; replayed: boolean }
interface ArtifactLog { current_version: number; versions: { version: number }[] }
interface PublishRequest { key: string; expected_version: number; operation_id: string; content: string }

const RUN = runId();
const KEY = `examples/typescript/notes-${RUN}.md`;
// `format=locker`: locker's own shapes (`{error, detail}` errors); without it the route speaks
// questlock's (`{code, message}`).
const LOCKER_FORMAT = { format: "locker" };

function readHead(server: Locker): Promise<Artifact> {
  return server.expect<Artifact>(200, "GET", "/v1/artifact", { query: { key: KEY, ...LOCKER_FORMAT } });
}

function publish(server: Locker, request: PublishRequest): Promise<Reply<unknown>> {
  return server.call("POST", "/v1/artifact", { query: LOCKER_FORMAT, body: request });
}

/** Resolves once `n` callers wait on it: both writers read before either publishes. */
function barrier(n: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    arrived += 1;
    if (arrived === n) open();
    return opened;
  };
}

interface Outcome { attempts: number; request: PublishRequest }

/** The CAS loop: read, edit, publish against what was read; on a conflict, start over. */
async function publishWithRetry(name: string, server: Locker, line: string, firstTry: () => Promise<void>): Promise<Outcome> {
  const attempts = 5;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const head = await readHead(server);
    if (attempt === 1) await firstTry(); // both writers have read the same version: now they race
    const request = {
      key: KEY,
      expected_version: head.version,
      operation_id: `${name}-${RUN}-${attempt}`, // a new operation id for each new request
      content: head.content + line,
    };
    const r = await publish(server, request);
    if (r.status === 200) {
      const p = r.body as Published;
      check(!p.replayed && p.artifact.version === head.version + 1, `${name}: publishing against v${head.version} gave ${JSON.stringify(p)}`);
      console.log(`${name}: published v${p.artifact.version} (attempt ${attempt})`);
      return { attempts: attempt, request };
    }
    if (isError(r, 409, "version_conflict")) {
      const current = Number(r.body["current_version"]);
      check(current > head.version, `${name}: a conflict names v${current}, not newer than v${head.version}`);
      console.log(`${name}: version_conflict: expected v${head.version}, the head is v${current}; re-reading`);
      continue;
    }
    throw new Failed(`${name}: publish answered ${r.status}: ${JSON.stringify(r.body)}`);
  }
  throw new Failed(`${name}: no publish went through in ${attempts} attempts`);
}

await main(async () => {
  const cfg = config(2);
  const writers = new Map([
    ["writer-a", new Locker(cfg.url, cfg.tokenA)],
    ["writer-b", new Locker(cfg.url, cfg.tokenB)],
  ]);
  const a = writers.get("writer-a")!;

  const seed = await publish(a, { key: KEY, expected_version: 0, operation_id: `seed-${RUN}`, content: "# Notes\n" });
  check(seed.status === 200 && (seed.body as Published).artifact.version === 1, `seeding ${KEY}: ${JSON.stringify(seed)}`);
  console.log(`writer-a: created ${KEY} v1 (expected version 0)`);

  // Two writers at once; the barrier lets both read v1 before either publishes.
  const ready = barrier(2);
  const names = [...writers.keys()];
  const outcomes = await Promise.all(names.map((name) => publishWithRetry(name, writers.get(name)!, `- from ${name}\n`, ready)));

  const tries = outcomes.map((o) => o.attempts).sort();
  check(tries.join() === "1,2", `expected one winner at once and one retry, got attempts ${tries.join()}`);
  const loserIndex = outcomes.findIndex((o) => o.attempts === 2);
  const loser = names[loserIndex]!;
  const lost = outcomes[loserIndex]!;
  const final = await readHead(a);
  check(final.version === 3, `expected v3 after the seed and two edits, got v${final.version}`);
  check(final.content.split("- from writer").length === 3, `an edit was lost: ${JSON.stringify(final.content)}`);
  console.log(`both edits are in v3; ${loser} lost the race once and retried:`);
  console.log("  " + final.content.trimEnd().replaceAll("\n", "\n  "));

  // A retry of an acknowledged publish (say, its answer was lost) is a replay, not a v4.
  const replay = await publish(writers.get(loser)!, lost.request);
  const replayed = replay.body as Published;
  check(replay.status === 200 && replayed.replayed && replayed.artifact.version === 3, `resending ${lost.request.operation_id}: ${JSON.stringify(replay)}`);
  // The same operation id with a different request is refused.
  const clash = await publish(writers.get(loser)!, { ...lost.request, content: lost.request.content + "more\n" });
  check(isError(clash, 409, "operation_conflict"), `reusing ${lost.request.operation_id} for another request: ${JSON.stringify(clash)}`);
  const log = await a.expect<ArtifactLog>(200, "GET", "/v1/artifact/log", { query: { key: KEY } });
  check(log.versions.map((v) => v.version).join() === "1,2,3", `the history is ${JSON.stringify(log.versions)}`);
  console.log(`resending ${lost.request.operation_id}: replayed v3; reusing it for other content: operation_conflict; history: v1, v2, v3`);
});
