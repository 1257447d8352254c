/**
 * The heartbeat's CPU cost per request inside the api process, next to B-redis's, for comparing
 * commits on a box too loaded for req/s (issue 20 item 4). Both apps run in this one process and
 * are driven through their fetch handlers (no sockets): the api exactly as it serves
 * (createApp + appFetch, metrics on), B-redis as bench/baseline-redis.ts builds it. Each round
 * sends REQUESTS requests, CONCURRENCY in flight, to each app in turn and reads this process's
 * CPU time (process.cpuUsage). On a loaded box, read the minimum over the rounds (the least
 * disturbed) and the median of the per-round ratio to B-redis (both measured a moment apart).
 * Bun's HTTP parsing and writing is left out: it is the same for both apps.
 *
 * Run: `bun run bench:heartbeat:cpu` (Postgres `amem_bench`, migrated by `bun run bench:heartbeat`,
 * and Redis db 2 on 127.0.0.1). Its Redis keys are deleted at the end; in `amem_bench` one user and
 * one session remain per run, as after `bun run bench:heartbeat`.
 * BENCH_SMOKE=1 (.ci/run): 2 rounds of 200, on amem_ci_bench_heartbeat_cpu (created and migrated first).
 * env: ROUNDS=30 REQUESTS=2000 CONCURRENCY=64 PROFILE_ONLY=0 (1: only the heartbeat, for `bun --cpu-prof`).
 */
import { Elysia, t } from "elysia";
import Redis, { type Result } from "ioredis";
import { createUser } from "@amem/core";
import { deleteKeys, scanKeys } from "@amem/store";
import { benchDatabaseUrl, isSmoke } from "./lib/run-env";
import { inProcessApi } from "./lib/in-process-api";

// A smoke run (.ci/run) checks that it still runs: a few small rounds, on a database of its own.
const SMOKE = isSmoke();
const ROUNDS = Number(process.env.ROUNDS ?? (SMOKE ? 2 : 30));
const REQUESTS = Number(process.env.REQUESTS ?? (SMOKE ? 200 : 2000));
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 64);
const PROFILE_ONLY = process.env.PROFILE_ONLY === "1";
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/2";
const prefix = `bench-cpu-${crypto.randomUUID().slice(0, 8)}`;

const DATABASE_URL = await benchDatabaseUrl("heartbeat_cpu", "amem_bench");

const { deps, apiFetch } = await inProcessApi(DATABASE_URL, REDIS_URL, prefix);

// B-redis, as bench/baseline-redis.ts builds it.
declare module "ioredis" {
  interface RedisCommander<Context> {
    benchTouch(key: string, nowMs: number, ttlMs: number): Result<number, Context>;
  }
}
const redis = new Redis(REDIS_URL, {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 2_000,
  connectTimeout: 2_000,
  enableAutoPipelining: true,
  lazyConnect: true,
});
redis.defineCommand("benchTouch", {
  numberOfKeys: 1,
  lua: "redis.call('HSET', KEYS[1], 'seen', ARGV[1])\nredis.call('PEXPIRE', KEYS[1], ARGV[2])\nreturn 1",
});
await redis.connect();
const baseline = new Elysia({ normalize: false }).post(
  "/touch",
  async ({ body }) => ({
    ok: (await redis.benchTouch(`${prefix}:baseline:${body.agent}:${body.sessionId}`, Date.now(), 86_400_000)) === 1,
  }),
  {
    body: t.Object(
      {
        agent: t.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9-]*$" }),
        sessionId: t.String({ minLength: 1, maxLength: 256 }),
        lastMessageExcerpt: t.Optional(t.String({ minLength: 1, maxLength: 4000 })),
      },
      { additionalProperties: false },
    ),
  },
);
const baselineFetch = baseline.fetch;

const user = await createUser(deps, { email: `${prefix}@bench.test`, withApiKey: true });
const session = { agent: "bench-agent", sessionId: `bench-session-${prefix}` };
const body = JSON.stringify(session);
const post = (url: string, apiKey?: string) =>
  new Request(url, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "content-length": String(body.length),
      ...(apiKey ? { "x-api-key": apiKey } : {}),
    },
  });
const opened = await apiFetch(
  new Request("http://127.0.0.1/api/v1/agent-sessions/open", {
    method: "POST",
    body: JSON.stringify({ ...session, source: "startup" }),
    headers: { "content-type": "application/json", "x-api-key": user.apiKey! },
  }),
);
if (opened.status !== 200) throw new Error(`open: ${opened.status} ${await opened.text()}`);

type Fetch = (request: Request) => Response | Promise<Response>;
const ops: { name: string; fetch: Fetch; request: () => Request }[] = [
  {
    name: "heartbeat",
    fetch: apiFetch,
    request: () => post("http://127.0.0.1/api/v1/agent-sessions/heartbeat", user.apiKey!),
  },
];
if (!PROFILE_ONLY) ops.push({ name: "B-redis", fetch: baselineFetch, request: () => post("http://127.0.0.1/touch") });

/** CPU-µs of this process per request, over `count` requests with CONCURRENCY in flight. */
async function round(op: (typeof ops)[number], count: number): Promise<number> {
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      sent++;
      const response = await op.fetch(op.request());
      if (response.status !== 200) throw new Error(`${op.name}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    }
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

for (const op of ops) await round(op, 2_000); // warm-up: JIT tiers
const figures = new Map<string, number[]>(ops.map((op) => [op.name, []]));
for (let r = 0; r < ROUNDS; r++) for (const op of ops) figures.get(op.name)!.push(await round(op, REQUESTS));
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;
const baselineFigures = figures.get("B-redis");
for (const [name, xs] of figures) {
  // Each round measures both apps a moment apart: their ratio moves less with the box's load than either figure.
  const paired = baselineFigures
    ? `  paired ratio to B-redis (median) ${quantile(
        xs.map((x, i) => x / baselineFigures[i]!),
        0.5,
      ).toFixed(2)}×`
    : "";
  console.log(
    `${name.padEnd(10)} CPU-µs/request  min ${quantile(xs, 0).toFixed(1)}  q1 ${quantile(xs, 0.25).toFixed(1)}  median ${quantile(xs, 0.5).toFixed(1)}${paired}`,
  );
}

await deleteKeys(deps.redis, await scanKeys(deps.redis, `${prefix}:*`));
redis.disconnect();
await deps.close();
process.exit(0);
