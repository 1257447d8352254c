/**
 * A capture's CPU cost, in the api and in Postgres, for comparing commits on a box too loaded for
 * req/s (issue 18: capture throughput). The api runs in this process exactly as it serves
 * (createApp + appFetch, metrics on) and is driven through its fetch handler (no sockets). Two
 * operations, alternated in every round: `capture` (the common case, one statement) and `attributed`
 * (the project has a live run, as under `amem connect`: the write's transaction locks the run and
 * attributes the memory to it). Each round sends REQUESTS captures, CONCURRENCY in flight, and reads
 * this process's CPU (process.cpuUsage) and that of the Postgres backends of its database plus
 * Postgres's shared processes (bench/lib/cpu.ts). Read the minimum and the median over the rounds;
 * compare commits by alternating them, each on a fresh database, in the same hour.
 *
 * Run: `bun run bench:capture:cpu` (Postgres `amem_bench`, migrated by `bun run bench:memories`, and
 * Redis db 2 on 127.0.0.1). Its tenant's memories and Redis keys are deleted at the end.
 * BENCH_SMOKE=1 (.ci/run): 2 rounds of 50, on amem_ci_bench_capture_cpu (created and migrated first).
 * env: ROUNDS=8 REQUESTS=500 CONCURRENCY=16 BENCH_DATABASE_URL BENCH_REDIS_URL
 */
import postgres from "postgres";
import { createUser } from "@amem/core";
import { deleteKeys, scanKeys } from "@amem/store";
import { benchDatabaseUrl, isSmoke } from "./lib/run-env";
import { inProcessApi } from "./lib/in-process-api";
import { ForeignCpu } from "./lib/cpu";
import { deleteTenantMemories } from "./lib/tenant";

const SMOKE = isSmoke();
const ROUNDS = Number(process.env.ROUNDS ?? (SMOKE ? 2 : 8));
const REQUESTS = Number(process.env.REQUESTS ?? (SMOKE ? 50 : 500));
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/2";
const prefix = `bench-capcpu-${crypto.randomUUID().slice(0, 8)}`;

const DATABASE_URL = await benchDatabaseUrl("capture_cpu", "amem_bench");
const database = new URL(DATABASE_URL).pathname.slice(1);
const { deps, apiFetch } = await inProcessApi(DATABASE_URL, REDIS_URL, prefix);
const user = await createUser(deps, { email: `${prefix}@bench.test`, withApiKey: true });
const post = (path: string, body: unknown) =>
  apiFetch(
    new Request(`http://127.0.0.1${path}`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json", "x-api-key": user.apiKey! },
    }),
  );
// The live run the attributed captures go to (project "live"); the others name project "amem", which has none.
const opened = await post("/api/v1/agent-sessions/open", {
  agent: "claude-code",
  sessionId: `${prefix}-run`,
  source: "startup",
  project: "live",
});
if (opened.status !== 200) throw new Error(`open: ${opened.status} ${await opened.text()}`);

// Text like bench/wrk/capture.lua's: unique per request (a duplicate would be a 409).
const components = ["auth middleware", "session lease", "search query", "migration runner", "billing worker"];
const tech = ["Postgres", "Redis", "BullMQ", "Bun", "Elysia", "drizzle", "Docker", "nginx"];
let counter = 0;
function memory(project: string) {
  counter++;
  const component = components[counter % components.length]!;
  return {
    memoryType: "note",
    topic: `${component} notes`,
    content: `The ${component} on ${tech[counter % tech.length]} times out after 30 seconds; next step is to batch the inserts. Captured by ${prefix} #${counter} (${Math.floor(Math.random() * 1e6)}).`,
    project,
    tags: ["bench-capture"],
  };
}

const ops = [
  { name: "capture", project: "amem" },
  { name: "attributed", project: "live" },
];
const cpu = new ForeignCpu(() => [], database);

/** api and Postgres CPU-µs per capture over `count` captures, CONCURRENCY in flight. */
async function round(project: string, count: number): Promise<{ api: number; pg: number }> {
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      sent++;
      const response = await post("/api/v1/memories", memory(project));
      if (response.status !== 201) throw new Error(`capture: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    }
  };
  const before = process.cpuUsage();
  const from = cpu.mark();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const to = cpu.mark();
  const used = process.cpuUsage(before);
  const pgSeconds = cpu.postgresCores(from, to) * ((to.at - from.at) / 1000);
  return { api: (used.user + used.system) / count, pg: (pgSeconds * 1e6) / count };
}

for (const op of ops) await round(op.project, SMOKE ? 20 : 300); // warm-up: JIT tiers, prepared statements
const figures = new Map(ops.map((op) => [op.name, [] as { api: number; pg: number }[]]));
for (let r = 0; r < ROUNDS; r++) for (const op of ops) figures.get(op.name)!.push(await round(op.project, REQUESTS));
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;
const fmt = (xs: number[]) => `min ${quantile(xs, 0).toFixed(0)}  median ${quantile(xs, 0.5).toFixed(0)}`;
console.log(
  `capture CPU-µs per request, ${ROUNDS} rounds × ${REQUESTS}, ${CONCURRENCY} in flight (database ${database})`,
);
for (const [name, xs] of figures)
  console.log(`${name.padEnd(11)} api ${fmt(xs.map((x) => x.api))}   postgres ${fmt(xs.map((x) => x.pg))}`);

const sql = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
await deleteTenantMemories(sql, user.id);
await sql.end();
await deleteKeys(deps.redis, await scanKeys(deps.redis, `${prefix}:*`));
await deps.close();
process.exit(0);
