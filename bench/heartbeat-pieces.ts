/**
 * CPU-ns of the pieces of one heartbeat request, each alone, in this process (issue 20 item 4):
 * what the request pipeline and the handler do beyond B-redis, measured in tight loops that a
 * loaded box disturbs far less than req/s. Sync pieces: best of 7 loops of 100,000 calls. Body
 * reads and deadlines (async, 64 in flight; a body read gets a fresh Request, so `new Request` is
 * included: compare with `request only`): best of 20 rounds of 5,000. No Postgres or Redis needed.
 *
 * Run: `bun run bench:heartbeat:pieces`
 */
import { Command } from "ioredis";
import { refuseRequestHead, hasJsonContentType, readJsonBody } from "@amem/http";
import {
  credentialFromRequest,
  prepareAuthentication,
  heartbeatView,
  HeartbeatBody,
  HeartbeatResponse,
  type Deps,
} from "@amem/core";
import { sha256Hex, withTimeout, DeadlineSweep, leaseOutcomes } from "@amem/platform";
import { redisKeys } from "@amem/store";
import { TypeCompiler } from "@sinclair/typebox/compiler";

const apiKey = `amem_${"aB3".repeat(13)}x`;
const session = { agent: "bench-agent", sessionId: "bench-session-843bb457" };
const body = JSON.stringify(session);
const request = () =>
  new Request("http://127.0.0.1:3000/api/v1/agent-sessions/heartbeat", {
    method: "POST",
    body,
    headers: {
      host: "127.0.0.1:3000",
      "content-type": "application/json",
      "content-length": String(body.length),
      "x-api-key": apiKey,
    },
  });
const sample = request();
const userId = "01a2262d-dc49-771d-8a2f-5d43996f5746";
const deps = { keys: redisKeys("bench-abcdef12"), config: { RATE_LIMIT: "off" } } as unknown as Deps;
const credential = { kind: "k" as const, secret: apiKey };
const bodyCheck = TypeCompiler.Compile(HeartbeatBody);
const responseCheck = TypeCompiler.Compile(HeartbeatResponse);
const view = () =>
  heartbeatView({ sessionRunId: userId, activationEpoch: 1, lastSeenMs: Date.now(), resurrected: false });
const answer = view();
const encoder = new TextEncoder();

/** The authenticated-heartbeat EVALSHA as ioredis encodes it and the socket gets it, with these credential keys. */
const scriptCommand = (auth: { entryKey: string; nowMs: number }) =>
  encoder.encode(
    new Command("evalsha", [
      "0".repeat(40),
      2,
      auth.entryKey,
      deps.keys.lease(userId, session.agent, session.sessionId),
      auth.nowMs,
      0,
      60,
      30_000,
      3_630_000,
      "0",
      "",
    ]).toWritable({}) as string,
  );
const syncPieces: Record<string, () => unknown> = {
  "new Request (harness)": request,
  "request id (randomUUID)": () => crypto.randomUUID(),
  refuseRequestHead: () => refuseRequestHead(sample),
  hasJsonContentType: () => hasJsonContentType(sample),
  credentialFromRequest: () => credentialFromRequest(sample),
  "SHA-256 of the key": () => sha256Hex(apiKey),
  "body schema check": () => bodyCheck.Check(session),
  "response schema check": () => responseCheck.Check(answer),
  heartbeatView: view,
  "counter inc (labels)": () => leaseOutcomes.inc({ outcome: "live" }),
  "Response.json + x-request-id": () => Response.json(answer, { status: 200, headers: { "x-request-id": userId } }),
  "Response.json, no header": () => Response.json(answer),
  "script command: keys + RESP + UTF-8": () => scriptCommand(prepareAuthentication(deps, credential, new Date())),
};

const limits = { limitBytes: 1_048_576, readTimeoutMs: 10_000, maxDepth: 16 };
const sweep = new DeadlineSweep(50);
const expired = () => new Error("expired");
const asyncPieces: Record<string, (r: Request) => unknown> = {
  "deadline: withTimeout (before)": () => withTimeout(limits.readTimeoutMs, () => Promise.resolve(1), expired),
  "deadline: DeadlineSweep (now)": () => sweep.within(limits.readTimeoutMs, Promise.resolve(1), expired),
  "request only": (r) => r,
  "request.json() (B-redis)": (r) => r.json(),
  "arrayBuffer in withTimeout (before)": async (r) =>
    JSON.parse(new TextDecoder().decode(await withTimeout(limits.readTimeoutMs, () => r.arrayBuffer()))),
  "readJsonBody (the api's parser)": (r) => readJsonBody(r, limits),
};

function bestSync(run: () => unknown): number {
  const calls = 100_000;
  let best = Number.POSITIVE_INFINITY;
  for (let loop = 0; loop < 7; loop++) {
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i++) run();
    const used = process.cpuUsage(before);
    best = Math.min(best, ((used.user + used.system) * 1000) / calls);
  }
  return best;
}

async function asyncRound(read: (r: Request) => unknown, count: number): Promise<number> {
  let started = 0;
  const worker = async () => {
    while (started < count) {
      started++;
      await read(request());
    }
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: 64 }, worker));
  const used = process.cpuUsage(before);
  return ((used.user + used.system) * 1000) / count;
}

for (const [name, run] of Object.entries(syncPieces)) console.log(`${name.padEnd(38)} ${bestSync(run).toFixed(0)} ns`);
const best = new Map(Object.keys(asyncPieces).map((name) => [name, Number.POSITIVE_INFINITY]));
for (const read of Object.values(asyncPieces)) await asyncRound(read, 5_000);
for (let round = 0; round < 20; round++)
  for (const [name, read] of Object.entries(asyncPieces))
    best.set(name, Math.min(best.get(name)!, await asyncRound(read, 5_000)));
for (const [name, ns] of best) console.log(`${name.padEnd(38)} ${ns.toFixed(0)} ns`);
process.exit(0);
