import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Sql } from "postgres";
import { createDb, listSessions } from "@amem/store";
import { listTenantMemories, buildBriefing, decodeCursor, encodeCursor, type Deps, type Principal } from "@amem/core";
import { explainAnalyze, recordingDrizzle, type Statement } from "./explain";
import { median, percentile } from "./report";

/**
 * List pages and the briefing at one tenant size (issue 18, "fast at any size"; BENCH.md: "list
 * page at any cursor depth, briefing, 10⁴ → 10⁶: flat, ≤ 10 ms p50"): sequential requests on one
 * connection, client-side p50/p99, beside the Postgres execution time of the very statement the
 * service sends, EXPLAINed on a connection opened by the service's own `createDb` (so its session
 * settings, `jit` among them, are the service's).
 */

const DAY = 86_400_000;
const AGENTS = ["claude-code", "codex", "cursor", "aider"] as const;

/** How many session runs the tenant holds. */
export async function sessionCount(db: Sql, userId: string): Promise<number> {
  const [row] = await db`select count(*)::int as n from agent_sessions where user_id = ${userId}`;
  return (row as { n: number }).n;
}

/**
 * Tops the tenant up to `level` session runs by COPY: last seen over the past year in order, 90%
 * closed, the rest lease-expired (never live: the list reads no lease from Redis for them then,
 * as for most rows of a long-lived tenant). Answers how many it added.
 */
export async function seedSessionsUpTo(db: Sql, userId: string, level: number): Promise<number> {
  const have = await sessionCount(db, userId);
  const count = level - have;
  if (count <= 0) return 0;
  const now = Date.now();
  const span = 365 * DAY;
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const seen = now - span + Math.floor((span * i) / count) - 3_600_000;
    const opened = new Date(seen - 1_800_000).toISOString();
    const iso = new Date(seen).toISOString();
    const closed = i % 10 === 0 ? "\\N" : iso;
    const agent = AGENTS[i % AGENTS.length]!;
    lines.push(
      `${Bun.randomUUIDv7("hex", seen)}\t${userId}\t${agent}\tbench-${have + i}\tstartup\t{"kind":"all"}\t${opened}\t${iso}\t${closed}\n`,
    );
  }
  await db.begin(async (tx) => {
    const sessionsIn =
      await tx`copy agent_sessions (id, user_id, agent, session_id, source, selector, opened_at, last_seen_at, closed_at) from stdin`.writable();
    const chunks: string[] = [];
    for (let i = 0; i < lines.length; i += 2_000) chunks.push(lines.slice(i, i + 2_000).join(""));
    await pipeline(Readable.from(chunks), sessionsIn);
  });
  await db`vacuum (analyze) agent_sessions`;
  return count;
}

/** The keyset position of the row at 90% of a list's order (newest first): what a cursor that deep points at. */
async function deepMemoryCursor(db: Sql, userId: string): Promise<string> {
  const [{ n }] = (await db`select count(*)::int as n from memories
    where user_id = ${userId} and valid_to is null and status = 'active'`) as unknown as [{ n: number }];
  const [row] = (await db`select created_at, id from memories
    where user_id = ${userId} and valid_to is null and status = 'active'
    order by created_at desc, id desc offset ${Math.floor(n * 0.9)} limit 1`) as unknown as [
    { created_at: Date; id: string },
  ];
  return encodeCursor("memories", row.created_at, row.id);
}

async function deepSessionCursor(db: Sql, userId: string): Promise<string> {
  const n = await sessionCount(db, userId);
  const [row] = (await db`select last_seen_at, id from agent_sessions where user_id = ${userId}
    order by last_seen_at desc, id desc offset ${Math.floor(n * 0.9)} limit 1`) as unknown as [
    { last_seen_at: Date; id: string },
  ];
  return encodeCursor("agent-sessions", row.last_seen_at, row.id);
}

export type PageFigure = {
  key: string;
  label: string;
  /** Client-side wall time of the request (ms). */
  p50: number;
  p99: number;
  n: number;
  /** Requests answered 503 (the service's statement timeout); their time counts in p50/p99. */
  failed: number;
  /** Median over the EXPLAINs of the statement's Execution Time and of its JIT total (0: no JIT). */
  pgMs: number;
  jitMs: number;
  plan: string;
};

type Target = {
  key: string;
  label: string;
  path: string;
  /** Runs the service code behind the request against a recording executor (its statements are EXPLAINed). */
  statements: (deps: Deps) => Promise<unknown>;
};

const executionMs = (plan: string) => Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? NaN);
const jitTotalMs = (plan: string) => Number(/JIT:[\s\S]*?Timing:[^\n]*Total ([\d.]+) ms/.exec(plan)?.[1] ?? 0);

/**
 * Measures each page: `warmup` untimed requests, then `n` timed sequential ones; then EXPLAIN
 * (ANALYZE, BUFFERS) of each statement the service code sends for it, 5 times (the median is
 * quoted; the last plan is kept). `beforeEach` runs ahead of each figure (the quiet wait).
 */
export async function probePages(o: {
  db: Sql;
  databaseUrl: string;
  apiBase: string;
  apiKey: string;
  userId: string;
  n: number;
  warmup: number;
  beforeEach?: () => Promise<void>;
}): Promise<PageFigure[]> {
  const memoryCursor = await deepMemoryCursor(o.db, o.userId);
  const sessionCursor = await deepSessionCursor(o.db, o.userId);
  const principal = { userId: o.userId } as unknown as Principal;
  const sessionsQuery = (cursor?: string) => {
    const after = cursor ? decodeCursor("agent-sessions", cursor) : undefined;
    return {
      userId: o.userId,
      state: "all" as const,
      cutoff: new Date(Date.now() - 60_000),
      limit: 51,
      after: after && { lastSeenAt: after.at, id: after.id },
    };
  };
  const targets: Target[] = [
    {
      key: "memories-first",
      label: "GET /memories, first page",
      path: "/api/v1/memories",
      statements: (deps) => listTenantMemories(deps, principal, {}),
    },
    {
      key: "memories-deep",
      label: "GET /memories, cursor at 90%",
      path: `/api/v1/memories?cursor=${memoryCursor}`,
      statements: (deps) => listTenantMemories(deps, principal, { cursor: memoryCursor }),
    },
    {
      key: "sessions-first",
      label: "GET /agent-sessions, first page",
      path: "/api/v1/agent-sessions",
      statements: (deps) => listSessions(deps.db, sessionsQuery()),
    },
    {
      key: "sessions-deep",
      label: "GET /agent-sessions, cursor at 90%",
      path: `/api/v1/agent-sessions?cursor=${sessionCursor}`,
      statements: (deps) => listSessions(deps.db, sessionsQuery(sessionCursor)),
    },
    {
      key: "briefing-all",
      label: "GET /briefing (all)",
      path: "/api/v1/briefing",
      statements: (deps) => buildBriefing(deps, principal, {}),
    },
  ];

  const service = createDb({ url: o.databaseUrl, poolSize: 1, timeoutMs: 60_000 });
  const logged = recordingDrizzle(service.client);
  const deps = { db: logged.db } as unknown as Deps;
  const out: PageFigure[] = [];
  try {
    for (const t of targets) {
      if (o.beforeEach) await o.beforeEach();
      const times: number[] = [];
      let failed = 0;
      for (let i = 0; i < o.warmup + o.n; i++) {
        const t0 = performance.now();
        const res = await fetch(`${o.apiBase}${t.path}`, {
          headers: { "x-api-key": o.apiKey },
          signal: AbortSignal.timeout(10_000),
        });
        const text = await res.text();
        // A 503 is the service's statement timeout (DEPENDENCY_TIMEOUT_MS): counted and timed, not fatal.
        if (res.status === 503 && i >= o.warmup) failed++;
        else if (res.status !== 200) throw new Error(`${t.label} answered ${res.status}: ${text.slice(0, 300)}`);
        if (i >= o.warmup) times.push(performance.now() - t0);
      }
      logged.statements.length = 0;
      await t.statements(deps);
      const captured: Statement[] = [...logged.statements];
      const pg: number[] = [];
      const jit: number[] = [];
      let plans: string[] = [];
      for (let round = 0; round < 5; round++) {
        plans = [];
        for (const statement of captured) plans.push(await explainAnalyze(service.client, statement));
        pg.push(plans.reduce((sum, p) => sum + executionMs(p), 0));
        jit.push(plans.reduce((sum, p) => sum + jitTotalMs(p), 0));
      }
      out.push({
        key: t.key,
        label: t.label,
        p50: percentile(times, 50),
        p99: percentile(times, 99),
        n: times.length,
        failed,
        pgMs: median(pg),
        jitMs: median(jit),
        plan: captured.map((s, i) => `${s.query}\n\n${plans[i]}`).join("\n\n----\n\n"),
      });
    }
  } finally {
    await service.client.end({ timeout: 1 });
  }
  return out;
}
