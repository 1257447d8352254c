import { describe, expect, it } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { insertMemoryWithEvent, insertSessionIfAbsent } from "@amem/store";
import { sha256Hex } from "@amem/platform";

const ctx = await createTestContext();

/*
 * Keyset pages (issue 18): a cursor is the (time, id) of a page's last item and the next page is
 * the rows strictly before it, compared as one row `(time, id) < (t, i)`. These tests pin what that
 * comparison must keep: rows sharing a time are ordered by id and never skipped or repeated at a
 * page boundary, and rows written between pages change nothing already promised.
 */

/** Ids in list order: time descending, then id descending (uuid order is its text order). */
const listOrder = (rows: { id: string; at: number }[]) =>
  [...rows].sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((r) => r.id);

/** A random (v4) id, so rows sharing a time are not also in id order by accident of their creation. */
const randomId = () => crypto.randomUUID();

/** A random id that sorts above or below `id` (uuid order is the order of its lower-case text). */
function idBeside(id: string, side: "above" | "below"): string {
  for (;;) {
    const candidate = randomId();
    if (side === "above" ? candidate > id : candidate < id) return candidate;
  }
}

async function storeMemory(tenant: Tenant, at: Date, id: string = randomId()): Promise<{ id: string; at: number }> {
  const content = `keyset ${crypto.randomUUID()}`;
  const row = await insertMemoryWithEvent(
    ctx.deps.db,
    {
      id,
      userId: tenant.userId,
      memoryType: "note",
      topic: "keyset",
      content,
      contentHash: sha256Hex(content),
      scope: "personal",
      project: null,
      tags: [],
      sessionRunId: null,
      now: at,
    },
    { id: randomId(), kind: "remember", actor: "test" },
  );
  return { id: row!.id, at: at.getTime() };
}

async function storeSession(tenant: Tenant, at: Date, id: string = randomId()): Promise<{ id: string; at: number }> {
  const row = await insertSessionIfAbsent(ctx.deps.db, {
    id,
    userId: tenant.userId,
    agent: "claude-code",
    sessionId: crypto.randomUUID(),
    source: "startup",
    project: null,
    scope: null,
    selector: { kind: "all" },
    briefedMemories: undefined,
    now: at,
  });
  // Closed, so no lease in Redis speaks for it and the list shows Postgres's lastSeenAt.
  await ctx.deps.db.execute(sql`update agent_sessions set closed_at = last_seen_at where id = ${row!.id}`);
  return { id: row!.id, at: at.getTime() };
}

type Page = { items: Record<string, unknown>[]; nextCursor: string | null };

/** Walks a list page by page (`between` runs after each page but the last), collecting every id seen, in order, into `seen`. */
async function walk(
  tenant: Tenant,
  path: string,
  idOf: (item: Record<string, unknown>) => string,
  between: () => Promise<void> = async () => {},
  seen: string[] = [],
): Promise<string[]> {
  let cursor: string | null = null;
  for (;;) {
    const res = await ctx.request("GET", `${path}?limit=3${cursor ? `&cursor=${cursor}` : ""}`, {
      apiKey: tenant.apiKey,
    });
    expect(res.status).toBe(200);
    const page = res.body as Page;
    seen.push(...page.items.map(idOf));
    cursor = page.nextCursor;
    if (!cursor) return seen;
    await between();
  }
}

const lists = [
  {
    route: "GET /api/v1/memories",
    path: "/api/v1/memories",
    store: storeMemory,
    idOf: (item: Record<string, unknown>) => item.id as string,
  },
  {
    route: "GET /api/v1/agent-sessions",
    path: "/api/v1/agent-sessions",
    store: storeSession,
    idOf: (item: Record<string, unknown>) => item.sessionRunId as string,
  },
];

for (const list of lists) {
  describe(`${list.route} keyset pages`, () => {
    it("returns every row exactly once, newest first, rows sharing a time ordered by id across page boundaries", async () => {
      const tenant = await newTenant(ctx);
      const base = Date.parse("2026-03-01T12:00:00.000Z");
      const rows: { id: string; at: number }[] = [];
      // Groups of 1, 4, 5 and 2 rows sharing a millisecond: pages of 3 end inside every group of more than one.
      for (const [offset, size] of [
        [0, 1],
        [1, 4],
        [2, 5],
        [3, 2],
      ] as const) {
        for (let i = 0; i < size; i++) rows.push(await list.store(tenant, new Date(base + offset)));
      }
      const seen = await walk(tenant, list.path, list.idOf);
      expect(seen).toEqual(listOrder(rows));
      expect(new Set(seen).size).toBe(rows.length);
    });

    it("stays consistent while rows are written between pages", async () => {
      const tenant = await newTenant(ctx);
      const base = Date.parse("2026-03-01T12:00:00.000Z");
      const rows: { id: string; at: number }[] = [];
      for (let i = 0; i < 12; i++) rows.push(await list.store(tenant, new Date(base + Math.floor(i / 3))));
      const seenSoFar: string[] = [];
      const passed: string[] = [];
      const ahead: { id: string; at: number }[] = [];
      const seen = await walk(
        tenant,
        list.path,
        list.idOf,
        async () => {
          // The cursor is the (time, id) of the last row listed. At that very time, a row whose id
          // sorts before it (listed already, had it existed) must not show up, and one whose id
          // sorts after it must come next; a row newer than everything must not show up either.
          const last = [...rows, ...ahead].find((r) => r.id === seenSoFar.at(-1))!;
          passed.push((await list.store(tenant, new Date(last.at), idBeside(last.id, "above"))).id);
          ahead.push(await list.store(tenant, new Date(last.at), idBeside(last.id, "below")));
          passed.push((await list.store(tenant, new Date())).id);
        },
        seenSoFar,
      );
      expect(ahead.length).toBeGreaterThan(2);
      expect(seen).toEqual(listOrder([...rows, ...ahead]));
      expect(seen.filter((id) => passed.includes(id))).toEqual([]);
    });
  });
}
