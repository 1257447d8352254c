import { afterAll, describe, expect, it } from "bun:test";
import postgres from "postgres";
import { captureLogs, createTestContext, eventually, newTenant, type Tenant, type TestContext } from "../helpers";
import { EXPORT_PAGE_ROWS } from "@amem/core";
import { TEST_DATABASE_URL } from "../env";

const EXPORTED_TABLES = [
  "memory_edges",
  "commitments",
  "facts",
  "memory_events",
  "memories",
  "agent_sessions",
  "scopes",
];

/*
 * A large account (issue 10, defect 14). With one request-sized statement bound
 * (DEPENDENCY_TIMEOUT_MS = 100 in `tight`) the old one-object export answered 503 on every retry:
 * reading its 40,000 memories in one statement took longer than that.
 */
const SIZES = {
  memories: 40_000,
  memoryEdges: 1_200,
  commitments: 1_200,
  facts: 1_100,
  agentSessions: 700,
  scopes: 600,
};

const logs = captureLogs("info");
/** A pool of three connections: a connection leaked by an export would soon starve it. */
const ctx = await createTestContext(
  { DB_POOL_SIZE: "3", SEARCH_MAX_CONCURRENT: "2", EXPORT_MAX_CONCURRENT: "2", EXPORT_PAGE_TIMEOUT_MS: "1000" },
  logs.logger,
);
const tight = await createTestContext({ DEPENDENCY_TIMEOUT_MS: "100" });
const large = await newTenant(ctx);
await seedLargeAccount(large);
// The bulk rows, even deleted, would slow every later test that reads the whole table or its indexes
// (pg_dump in the erasure tests, the consolidate job's trigram probes) until a vacuum.
afterAll(() => deleteBulkRows(large), { timeout: 120_000 });

/**
 * Bulk rows for `tenant` in one transaction, on a connection of its own: free of the service's
 * statement timeout and of the client's bound on a statement's answer, which follows it.
 */
async function seedLargeAccount(tenant: Tenant) {
  // Every section must span several pages for these tests to mean anything.
  if (Math.min(...Object.values(SIZES)) <= EXPORT_PAGE_ROWS) throw new Error("SIZES must exceed a page");
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  const seeded = admin.begin(async (sql) => {
    await sql`set local statement_timeout = 0`;
    await sql`
      insert into memories (id, user_id, memory_type, topic, content, content_hash, scope, status,
                            valid_from, recorded_at, created_at, updated_at)
      select gen_random_uuid(), ${tenant.userId}, 'note', 'topic ' || i,
             'export row ' || i || ' ' || repeat('lorem ipsum dolor ', 20), md5(${tenant.userId} || i), 'personal',
             'active', now(), now(), now(), now()
      from generate_series(1, ${SIZES.memories}) i`;
    await sql`
      with m as (select id, row_number() over (order by id) n from memories where user_id = ${tenant.userId})
      insert into memory_edges (id, user_id, from_id, to_id, edge_type, created_at)
      select gen_random_uuid(), ${tenant.userId}, a.id, b.id, 'extends', now()
      from m a join m b on b.n = a.n + 1 where a.n <= ${SIZES.memoryEdges}`;
    await sql`
      insert into commitments (id, user_id, memory_id, status, created_at, updated_at)
      select gen_random_uuid(), ${tenant.userId}, id, 'open', now(), now()
      from memories where user_id = ${tenant.userId} order by id limit ${SIZES.commitments}`;
    await sql`
      insert into facts (id, user_id, subject, predicate, value, valid_from, recorded_at)
      select gen_random_uuid(), ${tenant.userId}, 'subject ' || i, 'is', 'value ' || i, now(), now()
      from generate_series(1, ${SIZES.facts}) i`;
    await sql`
      insert into agent_sessions (id, user_id, agent, session_id, source, selector, opened_at, last_seen_at,
                                  last_message_excerpt)
      select gen_random_uuid(), ${tenant.userId}, 'claude-code', 'bulk-' || i, 'startup', '{"kind":"all"}',
             now(), now(), 'excerpt ' || i
      from generate_series(1, ${SIZES.agentSessions}) i`;
    await sql`
      insert into scopes (id, user_id, name, created_at)
      select gen_random_uuid(), ${tenant.userId}, 'bulk-' || lpad(i::text, 4, '0'), now()
      from generate_series(1, ${SIZES.scopes}) i`;
  });
  await seeded.finally(() => admin.end());
}

/** Deletes the bulk rows and vacuums, on a connection of its own (the contexts may be closed already). */
async function deleteBulkRows(tenant: Tenant) {
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.begin(async (sql) => {
      await sql`set local statement_timeout = 0`;
      // Only rows this file inserted reference each other here: skip the per-row foreign-key checks.
      await sql`set local session_replication_role = replica`;
      for (const table of EXPORTED_TABLES) await sql`delete from ${sql(table)} where user_id = ${tenant.userId}`;
      // The insert trigger indexed the bulk memories for search (~7 postings each): they go too.
      for (const table of ["memory_search_pending", "memory_terms", "memory_term_stats", "memory_search_stats"]) {
        await sql`delete from ${sql(table)} where user_id = ${tenant.userId}`;
      }
    });
    await admin`vacuum analyze memory_edges, commitments, facts, memories, agent_sessions, scopes, memory_terms`;
  } finally {
    await admin.end();
  }
}

/** Exports holding a connection now (an export names its connection while its transaction lasts). */
async function exportConnections(c: TestContext): Promise<number> {
  const rows = await c.deps.sql`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and application_name = 'amem-export'`;
  return rows[0]!.n;
}

/** Starts an export and reads its first chunk, leaving the rest unread. */
async function exportStarted(c: TestContext, apiKey: string) {
  const response = await c.app.handle(
    new Request("http://localhost/api/v1/export", { headers: { "x-api-key": apiKey } }),
  );
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const first = await reader.read();
  expect(first.done).toBe(false);
  return { response, reader, first: new TextDecoder().decode(first.value) };
}

/** Reads the rest of a body: its text and whether it ended normally or with an error. */
async function readRest(reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> }) {
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, ended: "normally" as const };
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return { text, ended: "with an error" as const };
  }
}

describe("GET /api/v1/export of a large account (streamed)", () => {
  it("answers 200 with a JSON document holding every row, in order, under a request-sized statement bound", async () => {
    const res = await tight.request("GET", "/api/v1/export", {
      apiKey: large.apiKey,
      headers: { "x-request-id": "export-large-1" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(res.headers.get("x-request-id")).toBe("export-large-1");
    const doc = res.body;
    expect(Object.keys(doc)).toEqual([
      "format",
      "exportedAt",
      "account",
      "scopes",
      "memories",
      "memoryEdges",
      "commitments",
      "facts",
      "agentSessions",
    ]);
    expect(doc.format).toBe("amem-export/1");
    expect(doc.account.id).toBe(large.userId);
    const ids = async (table: string, order = "id") =>
      (
        await ctx.deps.sql`select id from ${ctx.deps.sql(table)} where user_id = ${large.userId}
                            order by ${ctx.deps.sql(order)}`
      ).map((r) => r.id as string);
    const exported = (section: string) =>
      doc[section].map((item: { id?: string; sessionRunId?: string }) => item.id ?? item.sessionRunId);
    expect(exported("memories")).toEqual(await ids("memories"));
    expect(exported("memoryEdges")).toEqual(await ids("memory_edges"));
    expect(exported("commitments")).toEqual(await ids("commitments"));
    expect(exported("facts")).toEqual(await ids("facts"));
    expect(exported("agentSessions")).toEqual(await ids("agent_sessions"));
    expect(exported("scopes")).toEqual(await ids("scopes", "name"));
    expect(doc.memories.length).toBe(SIZES.memories);
    expect(doc.scopes.length).toBe(SIZES.scopes + 2);
    const sample = (
      await ctx.deps
        .sql`select id, content from memories where user_id = ${large.userId} order by id offset 31234 limit 1`
    )[0]!;
    expect(doc.memories[31_234]).toMatchObject({ id: sample.id, content: sample.content, memoryType: "note" });
    expect(doc.agentSessions[650].lastMessageExcerpt).toMatch(/^excerpt \d+$/);
    expect(await exportConnections(ctx)).toBe(0);
  }, 120_000);

  it("releases the export's connection when the client stops reading, again and again", async () => {
    // Three cancelled exports on a pool of three connections: a leaked one would starve the rest.
    for (let i = 0; i < 3; i++) {
      const { reader, first } = await exportStarted(ctx, large.apiKey);
      expect(first).toStartWith('{"format":"amem-export/1"');
      // The export waits for the reader inside its transaction.
      expect(await eventually(async () => (await exportConnections(ctx)) === 1, 10_000)).toBe(true);
      await reader.cancel();
      expect(await eventually(async () => (await exportConnections(ctx)) === 0, 10_000)).toBe(true);
    }
    const stopped = () => logs.lines.filter((l) => l.includes("export stopped: the client stopped reading"));
    expect(await eventually(async () => stopped().length >= 3, 10_000)).toBe(true);
    const small = await newTenant(ctx);
    const res = await ctx.request("GET", "/api/v1/export", { apiKey: small.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.memories).toEqual([]);
  });

  it("releases the export's connection when an HTTP client disconnects mid-stream", async () => {
    ctx.app.listen({ hostname: "127.0.0.1", port: 0 });
    ctx.onClose(async () => void (await ctx.app.stop()));
    const disconnect = new AbortController();
    const res = await fetch(`http://127.0.0.1:${ctx.app.server!.port}/api/v1/export`, {
      headers: { "x-api-key": large.apiKey },
      signal: disconnect.signal,
    });
    expect(res.status).toBe(200);
    expect((await res.body!.getReader().read()).done).toBe(false);
    expect(await eventually(async () => (await exportConnections(ctx)) === 1, 10_000)).toBe(true);
    disconnect.abort();
    expect(await eventually(async () => (await exportConnections(ctx)) === 0, 10_000)).toBe(true);
  });

  it("answers 503 with Retry-After to an export beyond EXPORT_MAX_CONCURRENT, before sending anything", async () => {
    const a = await exportStarted(ctx, large.apiKey);
    const b = await exportStarted(ctx, large.apiKey);
    const third = await ctx.request("GET", "/api/v1/export", { apiKey: large.apiKey });
    expect(third.status).toBe(503);
    expect(third.body).toEqual({ error: "unavailable" });
    expect(third.headers.get("retry-after")).toBe("1");
    await a.reader.cancel();
    await b.reader.cancel();
    expect(await eventually(async () => (await exportConnections(ctx)) === 0, 10_000)).toBe(true);
  });

  it("aborts the body (never a document that looks whole) and logs it when a page read fails mid-stream", async () => {
    const { reader, first } = await exportStarted(ctx, large.apiKey);
    // While the export is still in its memories, another session locks the table it reads next:
    // that page read outlasts EXPORT_PAGE_TIMEOUT_MS and fails (statement timeout) after the 200.
    const locker = await ctx.deps.sql.reserve();
    try {
      await locker`begin`;
      await locker`lock table memory_edges in access exclusive mode`;
      const rest = await readRest(reader);
      expect(rest.ended).toBe("with an error");
      expect(() => JSON.parse(first + rest.text)).toThrow();
    } finally {
      await locker`rollback`;
      locker.release();
    }
    const failed = () =>
      logs.lines.map((l) => JSON.parse(l)).find((l) => l.msg === "export failed; the response was aborted");
    expect(await eventually(async () => failed() !== undefined, 10_000)).toBe(true);
    expect(failed()).toMatchObject({
      level: 50,
      requestId: expect.any(String),
      err: { causes: [{ name: "PostgresError", code: "57014" }] },
    });
    expect(JSON.stringify(failed())).not.toContain(large.userId);
    expect(await eventually(async () => (await exportConnections(ctx)) === 0, 10_000)).toBe(true);
  });
});

describe("GET /api/v1/export past EXPORT_TIMEOUT_MS", () => {
  it("aborts the body at the deadline and releases the connection", async () => {
    const deadlineLogs = captureLogs("info");
    const short = await createTestContext({ EXPORT_TIMEOUT_MS: "1000" }, deadlineLogs.logger);
    const { reader, first } = await exportStarted(short, large.apiKey);
    const stopped = () => deadlineLogs.lines.some((l) => l.includes("export stopped at its deadline"));
    // The reader lags on purpose: the deadline, not the reader, ends the export.
    expect(await eventually(async () => stopped(), 10_000)).toBe(true);
    const rest = await readRest(reader);
    expect(rest.ended).toBe("with an error");
    expect(() => JSON.parse(first + rest.text)).toThrow();
    expect(await eventually(async () => (await exportConnections(short)) === 0, 10_000)).toBe(true);
  });
});
