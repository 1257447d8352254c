import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant, type TestResponse } from "../helpers";
import { SEARCH_MAX_DEPTH } from "@amem/core";
import { sha256Hex } from "@amem/platform";

const ctx = await createTestContext();

async function search(apiKey: string | undefined, body: unknown): Promise<TestResponse> {
  return ctx.request("POST", "/api/v1/search", { apiKey, body });
}

type Memory = { id: string; topic: string; content: string; [k: string]: unknown };
type Hit = { memory: Memory; score: number };

async function remember(tenant: Tenant, body: Record<string, unknown>): Promise<Memory> {
  const res = await ctx.request("POST", "/api/v1/memories", { apiKey: tenant.apiKey, body });
  expect(res.status).toBe(201);
  return res.body.memory;
}

/** Searches and expects 200, returning the hits. */
async function hits(tenant: Tenant, body: Record<string, unknown>): Promise<Hit[]> {
  const res = await search(tenant.apiKey, body);
  expect(res.status).toBe(200);
  return res.body.items;
}

const FIXTURE = {
  deploy: [
    "decision",
    "Deployment strategy",
    "We deploy with blue-green on Fly.io: new machines boot, pass health checks, then traffic switches over.",
  ],
  pnpm: [
    "preference",
    "Package manager",
    "Use pnpm, not npm or yarn; the lockfile is pnpm-lock.yaml and CI runs pnpm install --frozen-lockfile.",
  ],
  pgPool: [
    "fact",
    "Postgres connection pool",
    "The Postgres connection pool size is 10 per API process; raise it only together with max_connections.",
  ],
  httpPool: ["fact", "HTTP client", "The outbound HTTP client keeps a connection pool of 50 sockets per host."],
  redisEviction: [
    "fact",
    "Redis eviction policy",
    "Redis runs with maxmemory-policy noeviction because BullMQ loses jobs when keys are evicted.",
  ],
  flaky: [
    "blocker",
    "Flaky checkout test",
    "The checkout end-to-end test times out on CI when the Stripe sandbox is slow; it is retried twice before failing.",
  ],
  commits: [
    "preference",
    "Commit messages",
    "Write commit messages in the imperative mood with a summary line under 72 characters.",
  ],
  migrations: [
    "decision",
    "Database migrations",
    "Schema changes go through drizzle-kit generate; never edit a migration that has been merged to main.",
  ],
  logging: [
    "pattern",
    "Structured logging",
    "Log with pino as JSON to stdout, one child logger per request, and never log secrets or tokens.",
  ],
  flags: [
    "decision",
    "Feature flags",
    "New features ship behind LaunchDarkly flags, removed within two sprints after full rollout.",
  ],
  timestamps: [
    "fact",
    "Timestamps",
    "All timestamps are stored in UTC with millisecond precision and shown in the user's timezone only in the UI.",
  ],
  versioning: [
    "decision",
    "API versioning",
    "Breaking API changes get a new /api/v2 prefix; the old version is kept for six months with a Sunset header.",
  ],
  review: [
    "preference",
    "Code review",
    "Pull requests need one approving review and green CI before merging; squash merge only.",
  ],
  node: ["fact", "Node version", "The monorepo pins Node 20 LTS via .nvmrc and the engines field in package.json."],
  tokens: [
    "decision",
    "Session tokens",
    "Session tokens are opaque random strings stored as SHA-256 hashes in the database, not JWTs.",
  ],
  rateLimit: [
    "fact",
    "Rate limiting",
    "The public API allows 100 requests per minute per API key, enforced with a Redis sliding window.",
  ],
  localDev: [
    "note",
    "Local development",
    "Run docker compose up to start Postgres and Redis locally before running the test suite.",
  ],
  outage: [
    "event",
    "March database outage",
    "On March 12 the primary database ran out of disk space and the API was down for 40 minutes.",
  ],
  errors: [
    "pattern",
    "Error handling",
    "Services throw typed AppError codes; only the error plugin turns them into HTTP responses.",
  ],
  styling: [
    "preference",
    "Styling",
    "The dashboard uses Tailwind CSS utility classes; avoid writing custom CSS files.",
  ],
  backups: ["fact", "Backups", "Nightly pg_dump backups are uploaded to S3 and kept for 30 days."],
  alerts: [
    "commitment",
    "Add latency alerts",
    "I will add a Grafana alert when the p95 latency of the search endpoint exceeds 500 ms.",
  ],
  graphql: ["decision", "No GraphQL", "We chose REST over GraphQL for the public API to keep HTTP caching simple."],
  legacyAdmin: [
    "note",
    "Legacy admin app",
    "The old admin app still builds with yarn workspaces and plain npm scripts.",
  ],
} as const;
type Key = keyof typeof FIXTURE;

/** Each query with the memory that must rank first; none copies its memory's text. */
const QUERIES: [query: string, expected: Key, why: string][] = [
  ["how do we deploy", "deploy", "stemming; stop words ignored"],
  ["blue green deployment", "deploy", "hyphenated word, deploy/deployment stem"],
  ["postgress pool", "pgPool", "typo: no full-text match, trigram similarity finds it"],
  ["conection pool size", "pgPool", "typo, and 'size' beats the other connection pool"],
  ["postgres pool", "pgPool", "both connection pools mention pool; only one is Postgres"],
  ["which package manager", "pnpm", "topic words"],
  ["redis", "redisEviction", "topic (weight A) beats content (weight B): three memories mention Redis"],
  ["evicted bullmq jobs", "redisEviction", "content words in another order"],
  ["flaky checkout", "flaky", "topic words"],
  ["stripe sandbox slow", "flaky", "content words"],
  ["imperative commit message", "commits", "singular/plural stems"],
  ['"never edit a migration"', "migrations", "quoted phrase"],
  ["pino json logs", "logging", "log/logs stem"],
  ["launchdarkly", "flags", "a single rare word"],
  ["launchdarkley", "flags", "typo of a rare word"],
  ["utc timestamps", "timestamps", "topic + content"],
  ["sunset header", "versioning", "content phrase"],
  ["squash merging", "review", "merge/merging stem"],
  ["nvmrc", "node", "a token inside a dotted file name"],
  ["jwt", "tokens", "singular of JWTs"],
  ["requests per minute", "rateLimit", "content words"],
  ["docker compose", "localDev", "content words"],
  ["disk space outage", "outage", "topic + content"],
  ["yarn -pnpm", "legacyAdmin", "exclusion: the pnpm memory mentions yarn too"],
  ["nightly s3 backups", "backups", "topic + content"],
  ["grafanna p95 alert", "alerts", "typo next to exact words"],
  ["graphql or soap", "graphql", "websearch OR"],
  ["tailwind", "styling", "a single word in content only"],
  ["AppError", "errors", "case-insensitive"],
  ["api", "versioning", "topic (A) beats four memories that mention the API in content (B)"],
  ["pool", "pgPool", "topic (A) beats the other connection pool's content (B)"],
  ["postgres", "pgPool", "topic (A) beats content (B)"],
  ["http", "httpPool", "topic (A) beats content (B)"],
  ["session tokens", "tokens", "beats 'never log secrets or tokens'"],
];

describe("POST /api/v1/search", () => {
  describe("relevance", () => {
    it(`ranks the expected memory first for each of ${QUERIES.length} queries over ${Object.keys(FIXTURE).length} memories`, async () => {
      const tenant = await newTenant(ctx);
      const ids = {} as Record<Key, string>;
      for (const [key, [memoryType, topic, content]] of Object.entries(FIXTURE) as [Key, (typeof FIXTURE)[Key]][]) {
        ids[key] = (await remember(tenant, { memoryType, topic, content, scope: "work", project: "shop" })).id;
      }
      const keyOf = (id: string | undefined) => (Object.keys(ids) as Key[]).find((k) => ids[k] === id);
      const failures: string[] = [];
      for (const [query, expected, why] of QUERIES) {
        const found = await hits(tenant, { query });
        const first = keyOf(found[0]?.memory.id);
        if (first !== expected) {
          failures.push(
            `${JSON.stringify(query)} (${why}): expected ${expected}, got ${found.map((h) => `${keyOf(h.memory.id)}=${h.score}`).join(", ") || "nothing"}`,
          );
        }
      }
      expect(failures).toEqual([]);
    });

    it("finds a misspelt word among correct ones even when the correct words match many memories", async () => {
      const tenant = await newTenant(ctx);
      // More memories share the correct word than the sparse-query threshold, so the whole-text trigram stage is skipped.
      for (let n = 0; n < 25; n++)
        await remember(tenant, {
          memoryType: "note",
          topic: `Pool note ${n}`,
          content: `The worker pool number ${n} drains its queue.`,
        });
      const pgPool = await remember(tenant, {
        memoryType: FIXTURE.pgPool[0],
        topic: FIXTURE.pgPool[1],
        content: FIXTURE.pgPool[2],
      });
      expect((await hits(tenant, { query: "postgress pool" }))[0]?.memory.id).toBe(pgPool.id);
    });

    it("never returns a memory the query excludes, not even through trigram similarity", async () => {
      const tenant = await newTenant(ctx);
      const pnpm = await remember(tenant, {
        memoryType: "preference",
        topic: FIXTURE.pnpm[1],
        content: FIXTURE.pnpm[2],
      });
      const legacy = await remember(tenant, {
        memoryType: "note",
        topic: FIXTURE.legacyAdmin[1],
        content: FIXTURE.legacyAdmin[2],
      });
      expect((await hits(tenant, { query: "yarn" })).map((h) => h.memory.id).sort()).toEqual(
        [pnpm.id, legacy.id].sort(),
      );
      expect((await hits(tenant, { query: "yarn -pnpm" })).map((h) => h.memory.id)).toEqual([legacy.id]);
      expect((await hits(tenant, { query: 'yarn -"plain npm"' })).map((h) => h.memory.id)).toEqual([pnpm.id]);
    });

    it("excludes a dotted name as its parts in a row, not as its first part absent and the rest present", async () => {
      const tenant = await newTenant(ctx);
      const days = await remember(tenant, {
        memoryType: "note",
        topic: "Deploy days",
        content: "We deploy on Tuesdays and Thursdays.",
      });
      await remember(tenant, {
        memoryType: "note",
        topic: "Deploy config",
        content: "Edit config.yaml before a deploy.",
      });
      expect((await hits(tenant, { query: "deploy -config.yaml" })).map((h) => h.memory.id)).toEqual([days.id]);
    });

    it("ignores an exclusion of stop words only, as it ignores stop words among the wanted ones", async () => {
      const tenant = await newTenant(ctx);
      const memory = await remember(tenant, {
        memoryType: "note",
        topic: "Deploy days",
        content: "We deploy on Tuesdays and Thursdays.",
      });
      for (const query of ["deploy -the", 'deploy -"to be"'])
        expect({ query, ids: (await hits(tenant, { query })).map((h) => h.memory.id) }).toEqual({
          query,
          ids: [memory.id],
        });
    });

    it("answers each hit with the memory as GET /api/v1/memories/{id} shows it and a score in [0, 1]", async () => {
      const tenant = await newTenant(ctx);
      const memory = await remember(tenant, {
        memoryType: "fact",
        topic: "Backups",
        content: FIXTURE.backups[2],
        tags: ["ops"],
        project: "shop",
      });
      const res = await search(tenant.apiKey, { query: "backups" });
      expect(res.status).toBe(200);
      const got = await ctx.request("GET", `/api/v1/memories/${memory.id}`, { apiKey: tenant.apiKey });
      expect(res.body).toEqual({ items: [{ memory: got.body, score: res.body.items[0].score }], nextCursor: null });
      expect(res.body.items[0].score).toBeGreaterThan(0);
      expect(res.body.items[0].score).toBeLessThanOrEqual(1);
    });

    it("returns an empty page when nothing matches", async () => {
      const tenant = await newTenant(ctx);
      await remember(tenant, { memoryType: "note", topic: "Backups", content: FIXTURE.backups[2] });
      const res = await search(tenant.apiKey, { query: "kubernetes helm chart" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ items: [], nextCursor: null });
    });
  });

  describe("filters", () => {
    it("filters by scope, project and memory types", async () => {
      const tenant = await newTenant(ctx);
      const a = await remember(tenant, {
        memoryType: "decision",
        topic: "Cache",
        content: "Cache sessions in Redis for an hour.",
        scope: "work",
        project: "shop",
      });
      const b = await remember(tenant, {
        memoryType: "fact",
        topic: "Cache",
        content: "Cache product pages at the CDN edge.",
        scope: "work",
        project: "blog",
      });
      const c = await remember(tenant, {
        memoryType: "preference",
        topic: "Cache",
        content: "Cache nothing in the browser.",
        scope: "personal",
      });
      const d = await remember(tenant, {
        memoryType: "fact",
        topic: "Cache",
        content: "Cache warmers run at midnight.",
        scope: "work",
        project: "shop",
      });
      const ids = async (body: Record<string, unknown>) =>
        (await hits(tenant, { query: "cache", ...body })).map((h) => h.memory.id).sort();
      expect(await ids({})).toEqual([a.id, b.id, c.id, d.id].sort());
      expect(await ids({ scope: "work" })).toEqual([a.id, b.id, d.id].sort());
      expect(await ids({ scope: "personal" })).toEqual([c.id]);
      expect(await ids({ project: "shop" })).toEqual([a.id, d.id].sort());
      expect(await ids({ memoryTypes: ["fact"] })).toEqual([b.id, d.id].sort());
      expect(await ids({ memoryTypes: ["decision", "preference"] })).toEqual([a.id, c.id].sort());
      expect(await ids({ scope: "work", project: "shop", memoryTypes: ["fact"] })).toEqual([d.id]);
      expect(await ids({ scope: "research" })).toEqual([]);
    });

    it("hides superseded and archived memories by default and with current=true, and includes them with current=false", async () => {
      const tenant = await newTenant(ctx);
      const live = await remember(tenant, {
        memoryType: "fact",
        topic: "Queue",
        content: "The email queue retries five times.",
      });
      const superseded = await remember(tenant, {
        memoryType: "fact",
        topic: "Queue",
        content: "The email queue retries three times.",
      });
      const archived = await remember(tenant, {
        memoryType: "fact",
        topic: "Queue",
        content: "The email queue never retries.",
      });
      await ctx.deps.sql`update memories set valid_to = now() where id = ${superseded.id}`;
      await ctx.deps.sql`update memories set status = 'archived' where id = ${archived.id}`;
      const ids = async (body: Record<string, unknown>) =>
        (await hits(tenant, { query: "email queue", ...body })).map((h) => h.memory.id).sort();
      expect(await ids({})).toEqual([live.id]);
      expect(await ids({ current: true })).toEqual([live.id]);
      expect(await ids({ current: false })).toEqual([live.id, superseded.id, archived.id].sort());
      const all = await hits(tenant, { query: "email queue", current: false });
      expect(all.find((h) => h.memory.id === archived.id)!.memory.status).toBe("archived");
      expect(all.find((h) => h.memory.id === superseded.id)!.memory.validTo).not.toBeNull();
    });

    it("never returns another tenant's memories", async () => {
      const alice = await newTenant(ctx);
      const bob = await newTenant(ctx);
      const mine = await remember(alice, {
        memoryType: "fact",
        topic: "Secrets",
        content: "The vault unseal keys live with the SRE lead.",
      });
      await remember(bob, {
        memoryType: "fact",
        topic: "Secrets",
        content: "The vault unseal keys live with the SRE lead.",
      });
      await remember(bob, { memoryType: "fact", topic: "Secrets vault", content: "Vault tokens rotate weekly." });
      for (const body of [{ query: "vault unseal keys" }, { query: "vault", current: false }, { query: "vaullt" }]) {
        expect((await hits(alice, body)).map((h) => h.memory.id)).toEqual([mine.id]);
      }
      const nobody = await newTenant(ctx);
      expect(await hits(nobody, { query: "vault", current: false })).toEqual([]);
    });
  });

  describe("pagination", () => {
    async function walk(tenant: Tenant, body: Record<string, unknown>): Promise<Hit[][]> {
      const pages: Hit[][] = [];
      let cursor: string | undefined;
      do {
        const res = await search(tenant.apiKey, { ...body, ...(cursor ? { cursor } : {}) });
        expect(res.status).toBe(200);
        pages.push(res.body.items);
        cursor = res.body.nextCursor ?? undefined;
      } while (cursor && pages.length < 20);
      return pages;
    }

    async function paginationFixture(tenant: Tenant) {
      // Four memories built alike score exactly the same: ties are broken by id, descending. They
      // differ only by stop words, which the index leaves out.
      for (const article of ["", "the ", "a ", "this "])
        await remember(tenant, {
          memoryType: "note",
          topic: "Webhook retries",
          content: `Webhook retries, ${article}variant.`,
        });
      await remember(tenant, {
        memoryType: "note",
        topic: "Webhooks",
        content: "Webhook signatures use HMAC-SHA256; retries back off exponentially.",
      });
      await remember(tenant, {
        memoryType: "note",
        topic: "Payments",
        content: "Stripe webhook events are processed once; retries are idempotent.",
      });
      await remember(tenant, {
        memoryType: "note",
        topic: "Misc",
        content: "The webhook receiver is behind the load balancer.",
      });
    }

    it("walking nextCursor with limit 2 yields every match exactly once, in score order", async () => {
      const tenant = await newTenant(ctx);
      await paginationFixture(tenant);
      const all = await hits(tenant, { query: "webhook retries", limit: 50 });
      expect(all.length).toBe(7);
      const pages = await walk(tenant, { query: "webhook retries", limit: 2 });
      expect(pages.map((p) => p.length)).toEqual([2, 2, 2, 1]);
      expect(pages.flat()).toEqual(all);
      for (let i = 1; i < all.length; i++) {
        const [prev, next] = [all[i - 1]!, all[i]!];
        expect(prev.score > next.score || (prev.score === next.score && prev.memory.id > next.memory.id)).toBe(true);
      }
      expect(new Set(all.filter((h) => h.memory.topic === "Webhook retries").map((h) => h.score)).size).toBe(1);
    });

    it("defaults to 10 items per page", async () => {
      const tenant = await newTenant(ctx);
      for (let n = 0; n < 11; n++)
        await remember(tenant, { memoryType: "note", topic: "Ticket", content: `Ticket number ${n} is triaged.` });
      const first = await search(tenant.apiKey, { query: "ticket" });
      expect(first.body.items.length).toBe(10);
      const second = await search(tenant.apiKey, { query: "ticket", cursor: first.body.nextCursor });
      expect(second.body.items.length).toBe(1);
      expect(second.body.nextCursor).toBeNull();
    });

    it("continues strictly after the cursor while new memories are written", async () => {
      const tenant = await newTenant(ctx);
      await paginationFixture(tenant);
      const before = await hits(tenant, { query: "webhook retries", limit: 50 });
      const first = await search(tenant.apiKey, { query: "webhook retries", limit: 3 });
      const last = first.body.items[first.body.items.length - 1];
      // Built as the first page's memories, and newer: it matches the query's words as they do.
      const written = await remember(tenant, {
        memoryType: "note",
        topic: "Webhook retries",
        content: "Webhook retries, that variant.",
      });
      const rest = (await walk(tenant, { query: "webhook retries", limit: 3, cursor: first.body.nextCursor })).flat();
      // Every later item ranks strictly after the cursor, and the memories there before the write
      // come exactly as they did, none left out or repeated.
      for (const h of rest)
        expect(h.score < last.score || (h.score === last.score && h.memory.id < last.memory.id)).toBe(true);
      expect([...first.body.items, ...rest.filter((h) => h.memory.id !== written.id)]).toEqual(before);
      // It scores as its twins do and is newer, so it ranks above the cursor (a twin): no later page
      // shows it, and a new search puts it first.
      expect(first.body.items.every((h: Hit) => h.memory.topic === "Webhook retries")).toBe(true);
      expect(rest.some((h) => h.memory.id === written.id)).toBe(false);
      expect((await hits(tenant, { query: "webhook retries", limit: 1 }))[0]!.memory.id).toBe(written.id);
    });

    it("accepts back every cursor it answers with, however long the query's terms or their replacements", async () => {
      // Consonants only, no s or y: the stemmer leaves such words as they are.
      const letters = "bcdfghjklmnpqrtvwxz";
      const word = (length: number) =>
        Array.from({ length }, () => letters[Math.floor(Math.random() * letters.length)]).join("");
      // 32 words of 30 letters (the most slots a query has; 991 characters), none stored: the
      // tenant's three closest terms to each are that word and 28 letters more (similarity 31/61).
      const misspelt = Array.from({ length: 32 }, () => word(30));
      const cases = [
        { label: "a stored 600-character token", query: "ab1".repeat(200), stored: "ab1".repeat(200) },
        {
          label: "32 misspelt long words",
          query: misspelt.join(" "),
          stored: misspelt.flatMap((w) => [word(28), word(28), word(28)].map((tail) => w + tail)).join(" "),
        },
      ];
      const answers = [];
      for (const { label, query, stored } of cases) {
        const tenant = await newTenant(ctx);
        for (const n of ["one", "two"])
          await remember(tenant, { memoryType: "note", topic: `Terms ${n}`, content: `${stored} ${n}` });
        const first = await search(tenant.apiKey, { query, limit: 1 });
        const second = await search(tenant.apiKey, { query, limit: 1, cursor: first.body.nextCursor });
        answers.push({
          label,
          first: first.body.items?.length,
          second: second.status,
          items: second.body.items?.length,
        });
      }
      expect(answers).toEqual(cases.map(({ label }) => ({ label, first: 1, second: 200, items: 1 })));
    });

    it("offers no term longer than 64 characters as a misspelling's replacement", async () => {
      const tenant = await newTenant(ctx);
      // A run of one letter has the trigrams of a short one: similarity 1 to "aaaaaa", at any length.
      await remember(tenant, { memoryType: "note", topic: "Long run", content: `${"a".repeat(600)} one` });
      await remember(tenant, { memoryType: "note", topic: "Long run", content: `${"a".repeat(600)} two` });
      const short = await remember(tenant, { memoryType: "note", topic: "Short run", content: "aaaaaaa" });
      const first = await search(tenant.apiKey, { query: "aaaaaa", limit: 1 });
      expect({
        status: first.status,
        ids: first.body.items?.map((h: Hit) => h.memory.id),
        next: first.body.nextCursor,
      }).toEqual({
        status: 200,
        ids: [short.id],
        next: null,
      });
    });

    it("rejects a tampered, malformed or foreign cursor with 400 invalid_input", async () => {
      const tenant = await newTenant(ctx);
      await paginationFixture(tenant);
      const first = await search(tenant.apiKey, { query: "webhook retries", limit: 2 });
      const cursor: string = first.body.nextCursor;
      const decoded = Buffer.from(cursor, "base64url").toString();
      const reencode = (text: string) => Buffer.from(text).toString("base64url");
      const payload = JSON.parse(decoded);
      for (const [body, label] of [
        [
          {
            query: "webhook retries",
            limit: 2,
            cursor: `${cursor.slice(0, 5)}${cursor[5] === "A" ? "B" : "A"}${cursor.slice(6)}`,
          },
          "flipped character",
        ],
        [
          { query: "webhook retries", limit: 2, cursor: reencode(decoded.replace(/"s":[^,]+/, '"s":1.5')) },
          "score out of range",
        ],
        [
          { query: "webhook retries", limit: 2, cursor: reencode(decoded.replace(/"i":"[^"]+"/, '"i":"not-a-uuid"')) },
          "id edited",
        ],
        [
          { query: "webhook retries", limit: 2, cursor: reencode(decoded.replace(/"w":\[/, '"w":[[-1,[]],')) },
          "negative weight",
        ],
        [{ query: "webhook retries", limit: 2, cursor: reencode(decoded.replace(/^\{/, '{"zz":1,')) }, "unknown field"],
        [
          {
            query: "webhook retries",
            limit: 2,
            cursor: reencode(JSON.stringify({ ...payload, w: [[1, [["a\u0000", 1]]]] })),
          },
          "term with a NUL",
        ],
        [
          {
            query: "webhook retries",
            limit: 2,
            cursor: reencode(JSON.stringify({ ...payload, w: [[1, [["€".repeat(683), 1]]]] })),
          },
          "term longer than a lexeme (2,049 bytes)",
        ],
        [
          { query: "webhook retries", limit: 2, cursor: reencode(JSON.stringify({ ...payload, o: SEARCH_MAX_DEPTH })) },
          "offset past the depth a search pages to",
        ],
        [{ query: "webhook retries", limit: 2, cursor: "!!!!" }, "not base64url"],
        [{ query: "webhook", limit: 2, cursor }, "another query"],
        [{ query: "webhook retries", limit: 2, cursor, scope: "work" }, "other filters"],
        [{ query: "webhook retries", limit: 2, cursor, current: false }, "other current"],
      ] as const) {
        const res = await search(tenant.apiKey, body);
        expect({ label, status: res.status, body: res.body }).toEqual({
          label,
          status: 400,
          body: { error: "invalid_input" },
        });
      }
      const sameSearchOtherLimit = await search(tenant.apiKey, { query: "webhook retries", limit: 5, cursor });
      expect(sameSearchOtherLimit.status).toBe(200);
      // The same search by another tenant: the cursor carries the issuer's statistics, and another
      // tenant's pages would be scored with them.
      const other = await newTenant(ctx);
      await paginationFixture(other);
      const foreign = await search(other.apiKey, { query: "webhook retries", limit: 2, cursor });
      expect({ status: foreign.status, body: foreign.body }).toEqual({ status: 400, body: { error: "invalid_input" } });
    });
    it("refuses a cursor of an earlier ranking (issued before an upgrade changed its constants) with 400 invalid_input", async () => {
      const tenant = await newTenant(ctx);
      await paginationFixture(tenant);
      const query = { query: "webhook retries", limit: 2 };
      const first = await search(tenant.apiKey, query);
      const payload = JSON.parse(Buffer.from(first.body.nextCursor, "base64url").toString());
      const reencode = (p: unknown) => Buffer.from(JSON.stringify(p)).toString("base64url");
      // The fingerprint as the ranking with feedback (before 2026-12-01) computed it: the same search,
      // without the ranking's constants. Its position is a score of that ranking.
      const earlier = sha256Hex(JSON.stringify([tenant.userId, query.query, null, null, null, true, 0])).slice(0, 16);
      // And the shape those cursors had: the feedback's terms and the memories it rescored.
      for (const cursor of [
        reencode({ ...payload, f: earlier }),
        reencode({ ...payload, x: [["hmac", 1]], u: [first.body.items[0].memory.id] }),
      ]) {
        const res = await search(tenant.apiKey, { ...query, cursor });
        expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: "invalid_input" } });
      }
      expect((await search(tenant.apiKey, { ...query, cursor: first.body.nextCursor })).status).toBe(200);
    });

    it("pages a search to its first SEARCH_MAX_DEPTH results: the page that reaches them has no next cursor", async () => {
      const tenant = await newTenant(ctx);
      await paginationFixture(tenant);
      const first = await search(tenant.apiKey, { query: "webhook retries", limit: 1 });
      const payload = JSON.parse(Buffer.from(first.body.nextCursor, "base64url").toString());
      const at = (o: number) => Buffer.from(JSON.stringify({ ...payload, o })).toString("base64url");
      // The same position, shallow and at the last offset a cursor may hold: more results follow both.
      const shallow = await search(tenant.apiKey, { query: "webhook retries", limit: 1, cursor: at(1) });
      const deepest = await search(tenant.apiKey, {
        query: "webhook retries",
        limit: 1,
        cursor: at(SEARCH_MAX_DEPTH - 1),
      });
      expect([shallow.status, deepest.status]).toEqual([200, 200]);
      expect(deepest.body.items).toEqual(shallow.body.items);
      expect(shallow.body.nextCursor).toEqual(expect.any(String));
      expect(deepest.body.nextCursor).toBeNull();
      // A longer page there stops at the last result a search pages to.
      const longer = { query: "webhook retries", limit: 3 };
      const three = await search(tenant.apiKey, { ...longer, cursor: at(1) });
      const last = await search(tenant.apiKey, { ...longer, cursor: at(SEARCH_MAX_DEPTH - 1) });
      expect(three.body.items.length).toBe(3);
      expect(last.body.items).toEqual(three.body.items.slice(0, 1));
      expect(last.body.nextCursor).toBeNull();
    });
  });

  describe("validation and auth", () => {
    it("rejects out-of-contract bodies with 400 invalid_input", async () => {
      const tenant = await newTenant(ctx);
      for (const body of [
        {},
        { query: "" },
        { query: "q".repeat(1001) },
        { query: 42 },
        { query: "a\u0000b" },
        { query: "q", limit: 0 },
        { query: "q", limit: 51 },
        { query: "q", limit: 2.5 },
        { query: "q", limit: "5" },
        { query: "q", current: "true" },
        { query: "q", extra: 1 },
        { query: "q", memoryTypes: ["thought"] },
        { query: "q", memoryTypes: [] },
        { query: "q", memoryTypes: ["fact", "fact"] },
        { query: "q", memoryTypes: "fact" },
        { query: "q", scope: "Not A Scope" },
        { query: "q", project: "" },
        { query: "q", project: "p\u0000" },
        { query: "q", cursor: "" },
      ]) {
        const res = await search(tenant.apiKey, body);
        expect({ body, status: res.status, answer: res.body }).toEqual({
          body,
          status: 400,
          answer: { error: "invalid_input" },
        });
      }
      expect((await search(tenant.apiKey, { query: "q".repeat(1000) })).status).toBe(200);
      expect(
        (
          await search(tenant.apiKey, {
            query: "q",
            limit: 50,
            memoryTypes: ["decision", "commitment", "blocker", "fact", "preference", "pattern", "note", "event"],
          })
        ).status,
      ).toBe(200);
    });

    it("rejects unknown query parameters with 400 invalid_input", async () => {
      const tenant = await newTenant(ctx);
      const res = await ctx.request("POST", "/api/v1/search?limit=5", { apiKey: tenant.apiKey, body: { query: "q" } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    });

    it("returns 401 unauthorized without a credential or with an unknown one", async () => {
      for (const key of [undefined, "amem_notarealkey"]) {
        const res = await search(key, { query: "anything" });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: "unauthorized" });
      }
    });
  });
});
