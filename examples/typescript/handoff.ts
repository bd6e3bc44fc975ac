// A full handoff over HTTP: a planner writes a sealed pad, a worker reads it and verifies it.
//
// The planner creates a pad, appends the `locker.handoff.v1` envelope (block 0) and a plan
// (block 1), seals it and mints a read ticket. It hands the worker three things: the pad id, the
// ticket and the head hash (never the write key). The worker acts only if the blocks it reads
// hash, end to end, to that head.
//
//   node dist/handoff.js --url http://127.0.0.1:8000

import { type Bytes, ZERO_HASH, Locker, chainHash, check, config, fromBase64, main, runId } from "./locker.js";

interface PadCreated { pad_id: string; write_key: string; read_ticket: string; expires_at: number }
interface Appended { pad_id: string; seq: number; curr_hash: string }
interface Sealed { pad_id: string; state: string; head_hash: string; sealed_at: number }
interface Ticket { pad_id: string; ticket: string; type: string }
interface Manifest { pad_id: string; state: string; block_count: number; head_hash: string }
interface Block { seq: number; prev_hash: string; curr_hash: string; content_type: string; payload_b64: string }
interface BlockSlice { pad_id: string; total_blocks: number; blocks: Block[] }
interface PadReport { ok: boolean; expected_head: { expected: string; matches: boolean } | null }

/** What the worker gets: no write key. */
interface Handoff { padId: string; headHash: string; ticket: string }

const RUN = runId();

async function planner(server: Locker): Promise<Handoff> {
  const pad = await server.expect<PadCreated>(201, "POST", "/v1/pads", { body: { ttl_seconds: 600, max_blocks: 8 } });
  const { pad_id: padId, write_key: writeKey } = pad;
  console.log(`planner: created pad ${padId}`);

  const envelope = {
    schema: "locker.handoff.v1",
    task_id: `fix-${RUN}`,
    from_agent: "planner",
    to_agent: "worker",
    constraints: ["tests must pass"],
    artifacts: [{ name: "plan" }],
    budget_usd: 5.0,
    allowed_paths: ["src/", "tests/"],
  };
  const utf8 = new TextEncoder();
  const blocks: [Bytes, string][] = [
    [utf8.encode(JSON.stringify(envelope)), "application/json"],
    [utf8.encode("1. reproduce\n2. fix\n3. test\n"), "text/markdown"],
  ];
  let head = ZERO_HASH;
  for (const [seq, [payload, contentType]] of blocks.entries()) {
    // The raw body is the block; the write key is the bearer credential.
    const block = await server.expect<Appended>(201, "POST", `/v1/pads/${padId}/append`, {
      raw: payload,
      contentType,
      bearer: writeKey,
    });
    head = await chainHash(head, payload);
    check(block.seq === seq && block.curr_hash === head, `block ${seq} came back as ${JSON.stringify(block)}, expected ${head}`);
    console.log(`planner: appended block ${seq} (${contentType}), curr_hash ${head.slice(0, 12)}…`);
  }

  const sealed = await server.expect<Sealed>(200, "POST", `/v1/pads/${padId}/seal`, { bearer: writeKey });
  check(sealed.state === "sealed" && sealed.head_hash === head, `the seal answered ${JSON.stringify(sealed)}, expected head ${head}`);
  console.log(`planner: sealed; head ${head}`);

  // Sealed means final: even the writer cannot add a block now.
  await server.refused(409, "conflict", "POST", `/v1/pads/${padId}/append`, {
    raw: utf8.encode("one more thing"),
    contentType: "text/plain",
    bearer: writeKey,
  });
  console.log("planner: an append after the seal is refused (409 conflict)");

  const ticket = await server.expect<Ticket>(201, "POST", `/v1/pads/${padId}/tickets`, {
    body: { type: "read_once" },
    bearer: writeKey,
  });
  check(ticket.type === "read_once", `asked for a read_once ticket, got ${ticket.type}`);
  console.log("planner: minted a read_once ticket for the worker");

  // The write key writes; it does not read. Only a ticket does.
  await server.refused(401, "unauthorized", "GET", `/v1/pads/${padId}/blocks`, { bearer: writeKey });
  console.log("planner: reading with the write key is refused (401): the worker needs the ticket");
  return { padId, headHash: head, ticket: ticket.ticket };
}

async function worker(server: Locker, h: Handoff): Promise<void> {
  const manifest = await server.expect<Manifest>(200, "GET", `/v1/pads/${h.padId}/manifest`);
  check(
    manifest.state === "sealed" && manifest.head_hash === h.headHash,
    `the manifest says ${manifest.state} at ${manifest.head_hash}, expected sealed at ${h.headHash}`,
  );
  console.log(`worker: manifest: sealed, ${manifest.block_count} blocks, head matches`);

  // Without the ticket nothing is read.
  await server.refused(401, "unauthorized", "GET", `/v1/pads/${h.padId}/blocks`);
  console.log("worker: reading without the ticket is refused (401)");

  const read = await server.expect<BlockSlice>(200, "GET", `/v1/pads/${h.padId}/blocks`, { bearer: h.ticket });
  check(read.total_blocks === 2 && read.blocks.length === 2, `read ${read.blocks.length} of ${read.total_blocks} blocks, expected 2`);
  // Recompute the chain from the exact bytes: the server's word is not enough.
  let prev = ZERO_HASH;
  const payloads: Bytes[] = [];
  for (const block of read.blocks) {
    const payload = fromBase64(block.payload_b64);
    check(block.prev_hash === prev, `block ${block.seq} does not link to its predecessor`);
    prev = await chainHash(prev, payload);
    check(block.curr_hash === prev, `block ${block.seq} does not hash to its curr_hash`);
    payloads.push(payload);
  }
  check(prev === h.headHash, `the blocks hash to ${prev}, not the announced head ${h.headHash}`);
  console.log(`worker: recomputed the chain of ${payloads.length} blocks: it ends at the announced head`);

  const text = new TextDecoder("utf-8", { fatal: true });
  const [first, second] = payloads;
  check(first !== undefined && second !== undefined, "the pad has no envelope and plan");
  const envelope = JSON.parse(text.decode(first)) as Record<string, unknown>;
  check(
    envelope["schema"] === "locker.handoff.v1" && envelope["to_agent"] === "worker",
    `block 0 is not a handoff to this worker: ${JSON.stringify(envelope)}`,
  );
  const plan = text.decode(second).trim().split("\n");
  console.log(
    `worker: task ${String(envelope["task_id"])} from ${String(envelope["from_agent"])}, ` +
      `constraints ${JSON.stringify(envelope["constraints"])}; plan: ${JSON.stringify(plan)}`,
  );

  // The server's own verdict too: chain, accounting and the journal's record of the pad.
  const report = await server.expect<PadReport>(200, "GET", `/v1/pads/${h.padId}/verify`, { query: { expect_head: h.headHash } });
  check(report.ok && report.expected_head?.matches === true, `the server's verify says ${JSON.stringify(report)}`);
  const wrong = await server.expect<PadReport>(200, "GET", `/v1/pads/${h.padId}/verify`, { query: { expect_head: "f".repeat(64) } });
  check(!wrong.ok && wrong.expected_head?.matches === false, `verify against a wrong head did not fail: ${JSON.stringify(wrong)}`);
  console.log("worker: the server verifies the pad against the head, and rejects a wrong head");
}

await main(async () => {
  const cfg = config(1);
  const handoff = await planner(new Locker(cfg.url, cfg.token));
  // The worker is another process in real life; all it holds is pad id, ticket and head.
  await worker(new Locker(cfg.url), handoff);
});
