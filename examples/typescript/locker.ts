// The plumbing the TypeScript examples share: a small client for `locker serve` on Node's global
// fetch, with no runtime dependency.
//
// Every call names the status it expects; anything else throws `Failed` with the server's answer,
// so an example never carries on past a response it did not expect.

export const ZERO_HASH = "0".repeat(64);

/** Bytes, as fetch and crypto.subtle take them. */
export type Bytes = Uint8Array<ArrayBuffer>;

/** An unexpected answer, or a guarantee that did not hold. */
export class Failed extends Error {}

/** Asserts a guarantee. */
export function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new Failed(what);
}

/** locker's error body: `{error, detail, hints?}`, sometimes with more fields. */
export interface ErrorBody {
  error: string;
  detail: string;
  hints?: string[];
  [field: string]: unknown;
}

/** Lowercase hex SHA-256 of bytes. */
export async function sha256Hex(bytes: Bytes): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A block's hash: sha256(prev_hash as 64 ASCII hex characters ‖ payload bytes). */
export async function chainHash(prevHash: string, payload: Bytes): Promise<string> {
  const prefix = new TextEncoder().encode(prevHash);
  const joined = new Uint8Array(prefix.length + payload.length);
  joined.set(prefix);
  joined.set(payload, prefix.length);
  return sha256Hex(joined);
}

export function fromBase64(b64: string): Bytes {
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

/** A fresh suffix, so that every run uses new pad, key and work item names. */
export function runId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export interface CallOptions {
  query?: Record<string, string | number>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as these exact bytes. */
  raw?: Bytes;
  contentType?: string;
  /** Replaces the agent token: a pad's write key or read ticket. */
  bearer?: string;
}

export interface Reply<T> {
  status: number;
  body: T;
}

/** One caller of a `locker serve`: its base URL and, optionally, an agent's bearer token. */
export class Locker {
  readonly url: string;
  readonly token: string | undefined;

  constructor(url: string, token?: string) {
    this.url = url.replace(/\/+$/, "");
    this.token = token;
  }

  /** Sends one request; returns the status and the JSON body (null if there is none). */
  async call<T>(method: string, path: string, opts: CallOptions = {}): Promise<Reply<T>> {
    let url = this.url + path;
    if (opts.query) {
      const q = Object.entries(opts.query).map(([k, v]) => [k, String(v)]);
      url += "?" + new URLSearchParams(q).toString();
    }
    const headers: Record<string, string> = { Accept: "application/json" };
    let body: Bytes | string | undefined;
    if (method !== "GET") {
      // Every write goes as JSON (or the given type): the server refuses the types a web page
      // could post anywhere (415).
      headers["Content-Type"] = opts.contentType ?? "application/json";
      body = opts.raw ?? (opts.body === undefined ? "" : JSON.stringify(opts.body));
    }
    const credential = opts.bearer ?? this.token;
    if (credential) headers["Authorization"] = `Bearer ${credential}`;
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body: body ?? null, redirect: "error" });
    } catch (e) {
      const why = e instanceof Error && e.cause !== undefined ? `${e.message} (${String(e.cause)})` : String(e);
      throw new Failed(`${method} ${url}: cannot reach the server: ${why}`);
    }
    const text = await response.text();
    try {
      return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
    } catch {
      throw new Failed(`${method} ${path}: ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
  }

  /** `call`, requiring `status`; returns the body. */
  async expect<T>(status: number, method: string, path: string, opts: CallOptions = {}): Promise<T> {
    const r = await this.call<T>(method, path, opts);
    if (r.status !== status) {
      throw new Failed(`${method} ${path}: expected ${status}, got ${r.status}: ${JSON.stringify(r.body)}`);
    }
    return r.body;
  }

  /** `call`, requiring a refusal with this status and error code; returns the error body. */
  async refused(status: number, error: string, method: string, path: string, opts: CallOptions = {}): Promise<ErrorBody> {
    const body = await this.expect<ErrorBody | null>(status, method, path, opts);
    check(body?.error === error, `${method} ${path}: expected error ${error}, got ${JSON.stringify(body)}`);
    return body;
  }
}

/** Whether a reply is a refusal with this status and error code. */
export function isError(r: Reply<unknown>, status: number, error: string): r is Reply<ErrorBody> {
  const body = r.body as ErrorBody | null;
  return r.status === status && body?.error === error;
}

export interface Config {
  url: string;
  token: string | undefined;
  tokenA: string | undefined;
  tokenB: string | undefined;
}

/** The command line (`--url URL`, `--token T`, `--token-a T`, `--token-b T`) over the environment. */
export function config(tokens: 0 | 1 | 2): Config {
  const flags = new Map<string, string>();
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    const known = ["--url", "--token", "--token-a", "--token-b"];
    if (flag === undefined || value === undefined || !known.includes(flag)) {
      throw new Failed(`usage: [--url URL] [--token T | --token-a T --token-b T]; got ${argv.join(" ")}`);
    }
    flags.set(flag, value);
  }
  const env = process.env;
  const c: Config = {
    url: flags.get("--url") ?? env["LOCKER_URL"] ?? "",
    token: flags.get("--token") ?? env["LOCKER_TOKEN"],
    tokenA: flags.get("--token-a") ?? env["LOCKER_TOKEN_A"],
    tokenB: flags.get("--token-b") ?? env["LOCKER_TOKEN_B"],
  };
  if (!c.url) throw new Failed("give the server's URL with --url or LOCKER_URL");
  if (tokens === 2 && !(c.tokenA && c.tokenB)) {
    throw new Failed(
      "give two agents' tokens (`locker token create --agent NAME --scope SCOPE`, one scope) " +
        "with --token-a/--token-b or LOCKER_TOKEN_A/LOCKER_TOKEN_B",
    );
  }
  return c;
}

/** Runs an example: exit 0 when every guarantee held, 1 with the reason otherwise. */
export async function main(run: () => Promise<void>): Promise<void> {
  try {
    await run();
    console.log("OK");
  } catch (e) {
    console.error(`FAIL: ${e instanceof Failed ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exitCode = 1;
  }
}
