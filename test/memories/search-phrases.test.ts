import { describe, expect, it } from "bun:test";
import { MAX_EXCLUSIONS, MAX_PHRASES } from "@amem/core";
import { createTestContext, newTenant, type Tenant } from "../helpers";

const ctx = await createTestContext();
/** A loaded machine (the suite shares two cores) runs these well past bun's 5 s default. */
const TEST_TIMEOUT_MS = 60_000;

async function remember(tenant: Tenant, topic: string, content: string): Promise<string> {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "fact", topic, content },
  });
  expect(res.status).toBe(201);
  return res.body.memory.id;
}

async function search(tenant: Tenant, body: Record<string, unknown>) {
  const res = await ctx.request("POST", "/api/v1/search", { apiKey: tenant.apiKey, body });
  expect(res.status).toBe(200);
  return res.body as { items: { memory: { id: string }; score: number }[]; nextCursor: string | null };
}

const ids = (page: { items: { memory: { id: string } }[] }) => page.items.map((i) => i.memory.id);

describe("POST /api/v1/search quoted phrases", () => {
  it(
    "requires a phrase that some memory of the tenant contains",
    async () => {
      const tenant = await newTenant(ctx);
      const exact = await remember(tenant, "Pool", "The connection pool size is 10 per process.");
      await remember(tenant, "Sizes", "A pool of 10 connections is the size we chose.");
      expect(ids(await search(tenant, { query: '"connection pool size"' }))).toEqual([exact]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "relaxes a phrase that no memory contains to its words, keeping the other phrases",
    async () => {
      const tenant = await newTenant(ctx);
      const a = await remember(tenant, "Pool", "The connection pool size is 10 per process.");
      const b = await remember(tenant, "Sizes", "A pool of 10 connections is the size we chose.");
      expect(ids(await search(tenant, { query: '"size of the pool connection"' })).sort()).toEqual([a, b].sort());
      // The first phrase is nowhere, so it is relaxed; the second is in one memory, so it still filters.
      expect(ids(await search(tenant, { query: '"size of the pool connection" "connections is the size"' }))).toEqual([
        b,
      ]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "relaxes a phrase that only memories the search cannot return hold (superseded, another project, excluded)",
    async () => {
      const tenant = await newTenant(ctx);
      const old = await remember(tenant, "Deploys", "We ship with a blue green deploy on Fly.");
      const revised = await ctx.request("POST", `/api/v1/memories/${old}/revise`, {
        apiKey: tenant.apiKey,
        body: { content: "We ship with a canary deploy on Fly; green checks gate it." },
      });
      expect(revised.status).toBe(201);
      const current = revised.body.memory.id;
      // Only the superseded version holds the phrase: the current search relaxes it and finds the
      // revision by its words; a search of every version still requires it.
      expect(ids(await search(tenant, { query: '"blue green deploy"' }))).toEqual([current]);
      expect(ids(await search(tenant, { query: '"blue green deploy"', current: false }))).toEqual([old]);

      const inProject = await ctx.request("POST", "/api/v1/memories", {
        apiKey: tenant.apiKey,
        body: {
          memoryType: "fact",
          topic: "Pager",
          content: "The pager rota rotates weekly on Mondays.",
          project: "ops",
        },
      });
      const elsewhere = await ctx.request("POST", "/api/v1/memories", {
        apiKey: tenant.apiKey,
        body: { memoryType: "fact", topic: "Rota", content: "Weekly, the rota of the pager rotates.", project: "web" },
      });
      expect([inProject.status, elsewhere.status]).toEqual([201, 201]);
      expect(ids(await search(tenant, { query: '"pager rota"', project: "web" }))).toEqual([elsewhere.body.memory.id]);
      // Held only by a memory the exclusion removes: relaxed too.
      expect(ids(await search(tenant, { query: '"pager rota" -mondays' }))).toEqual([elsewhere.body.memory.id]);
      expect(ids(await search(tenant, { query: '"pager rota"', project: "ops" }))).toEqual([inProject.body.memory.id]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "keeps the first page's relaxation on later pages, even once a memory with the phrase is written",
    async () => {
      const tenant = await newTenant(ctx);
      const written: string[] = [];
      for (const [i, text] of [
        "The replica lag alarm fires after 30 seconds of lag.",
        "Lag on the replica is measured by the alarm script.",
        "An alarm for replica lag pages the on-call engineer.",
      ].entries())
        written.push(await remember(tenant, `Replica ${i}`, text));
      const query = { query: 'what about "alarm replica lag"', limit: 1 };
      const first = await search(tenant, query);
      expect(first.items).toHaveLength(1);
      // Now a memory holds the phrase: a fresh search requires it, a continued one does not.
      const holder = await remember(tenant, "Phrase", "Our alarm replica lag threshold is 30 seconds.");
      expect(ids(await search(tenant, { ...query, limit: 10 }))).toEqual([holder]);
      const seen = ids(first);
      for (let cursor = first.nextCursor, pages = 0; cursor !== null && pages < 10; pages++) {
        const page = await search(tenant, { ...query, cursor });
        seen.push(...ids(page));
        cursor = page.nextCursor;
      }
      expect(seen.filter((id) => id !== holder).sort()).toEqual([...written].sort());
      expect(new Set(seen).size).toBe(seen.length);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'keeps a phrase\'s stop words: "not running" requires them, and -"not running" excludes only memories that say it',
    async () => {
      const tenant = await newTenant(ctx);
      const down = await remember(tenant, "Cron status A", "The backup cron is not running since Monday.");
      const fine = await remember(tenant, "Cron status B", "The backup cron is running fine again.");
      expect(ids(await search(tenant, { query: '"not running"' }))).toEqual([down]);
      expect(ids(await search(tenant, { query: 'backup -"not running"' }))).toEqual([fine]);
      // Case and punctuation between the words do not matter; a phrase of stop words only excludes nothing.
      expect(ids(await search(tenant, { query: '"Cron Is, Not running"' }))).toEqual([down]);
      expect(ids(await search(tenant, { query: 'backup -"to be"' })).sort()).toEqual([down, fine].sort());
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "excludes a name with colons or brackets as the phrase of its parts, and requires a quoted identifier whole",
    async () => {
      const tenant = await newTenant(ctx);
      const cache = await remember(tenant, "Cache layer", "The cache layer stores session tokens in redis.");
      const keys = await remember(tenant, "Cache keys", "Session keys look like redis:cache:v2 and user:42:session.");
      const pager = await remember(tenant, "Pager", "The pager rota page 42 lists the session owners.");
      // Bare, -foo:bar read as "not foo, and bar": it removed memories that hold neither.
      expect(ids(await search(tenant, { query: "layer -foo:bar" }))).toEqual([cache]);
      expect(ids(await search(tenant, { query: "layer -std::vector -print(x) -10:30" }))).toEqual([cache]);
      expect(ids(await search(tenant, { query: "session -redis:cache" })).sort()).toEqual([cache, pager].sort());
      // Quoted, an identifier is required whole, not any one of its parts.
      expect(ids(await search(tenant, { query: '"user:42:session"' }))).toEqual([keys]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "finds a phrase within the topic or the content, not across the seam between them",
    async () => {
      const tenant = await newTenant(ctx);
      // The topic ends "layer" and the content starts "Cache": no field holds "layer cache".
      await remember(tenant, "Cache layer", "Cache entries expire after an hour.");
      const real = await remember(tenant, "Read path", "Reads go through a layer cache in front of Postgres.");
      expect(ids(await search(tenant, { query: '"layer cache"' }))).toEqual([real]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "finds a memory by a long quoted run of Chinese with a stop word in it, within the statement timeout",
    async () => {
      const tenant = await newTenant(ctx);
      // 600 characters: 599 pairs, each a word; "the" dropped, so the phrase would be checked as
      // written by a pattern whose compile ran past the statement timeout (503).
      const run = Array.from({ length: 600 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 37) % 20_000))).join("");
      const held = await remember(tenant, "Notes", `the ${run}`);
      await remember(tenant, "Other", run.slice(0, 40));
      expect(ids(await search(tenant, { query: `"the ${run}"` }))).toEqual([held]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "refuses a query with more phrases or exclusions than its bound (400), repeats counted once",
    async () => {
      const tenant = await newTenant(ctx);
      const held = await remember(tenant, "Pool", "The connection pool size is 10 per process.");
      const many = (n: number) => Array.from({ length: n }, (_, i) => `"pool size${i}"`).join(" ");
      const refused = async (query: string) => {
        const res = await ctx.request("POST", "/api/v1/search", { apiKey: tenant.apiKey, body: { query } });
        expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: "invalid_input" } });
      };
      await refused(many(MAX_PHRASES + 1));
      await refused(`pool ${Array.from({ length: MAX_EXCLUSIONS + 1 }, (_, i) => `-x.${i}`).join(" ")}`);
      // The same phrase written twice the bound's number of times is one phrase.
      const repeated = Array.from({ length: 2 * MAX_PHRASES }, () => '"pool size"').join(" ");
      expect(ids(await search(tenant, { query: repeated }))).toEqual([held]);
    },
    TEST_TIMEOUT_MS,
  );
});
