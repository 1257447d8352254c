import { describe, expect, it, setDefaultTimeout } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestContext, foldAllSearchStats, newTenant, type Tenant } from "../helpers";
import { saturation, CHAMPION_DEPTH, FUZZY_MAX_WORDS } from "@amem/core";

const ctx = await createTestContext();
const CANDIDATES = ctx.config.SEARCH_CANDIDATES;
/** One that scores in full as few memories as it may ("ranks first the memory holding the words side by side"). */
const narrow = await createTestContext({ SEARCH_CANDIDATES: "1" });
// Several tests write a few dozen memories through the API and fold the whole test database's
// pending statistics: seconds on a loaded machine.
setDefaultTimeout(60_000);

type Memory = { id: string; topic: string; content: string; validTo: string | null };
type Hit = { memory: Memory; score: number };

async function remember(tenant: Tenant, topic: string, content: string, extra: Record<string, unknown> = {}) {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "note", topic, content, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.memory as Memory;
}

async function search(
  tenant: Tenant,
  body: Record<string, unknown>,
): Promise<{ items: Hit[]; nextCursor: string | null }> {
  const res = await ctx.request("POST", "/api/v1/search", { apiKey: tenant.apiKey, body });
  expect(res.status).toBe(200);
  return res.body;
}

const topicsOf = (hits: Hit[]) => hits.map((h) => h.memory.topic);

/** Folds every pending memory into the statistics, as the workers' flusher does. */
const foldAll = () => foldAllSearchStats(ctx);

describe("search ranking properties (README, Search)", () => {
  it("ranks a memory matching a rare word above one matching a word most memories share", async () => {
    const tenant = await newTenant(ctx);
    await remember(tenant, "Kafka", "Consumer lag alerts fire after five minutes.");
    for (let i = 0; i < 8; i++) await remember(tenant, `Release ${i}`, `Deploy number ${i} went out on a Tuesday.`);
    // Newest, so it would win a tie on the id order.
    await remember(tenant, "Deploy", "Deploy window is after standup on weekdays.");
    const { items } = await search(tenant, { query: "kafka deploy" });
    expect(topicsOf(items)[0]).toBe("Kafka");
  });

  it("ranks a memory matching every word of the query above memories matching one of them", async () => {
    const tenant = await newTenant(ctx);
    await remember(tenant, "Vacuum", "Postgres vacuum runs nightly on the reporting replica.");
    await remember(tenant, "Replica", "Postgres replica lag is watched by the on-call person.");
    await remember(tenant, "Nightly jobs", "Vacuum of the analytics warehouse happens on Sundays.");
    const { items } = await search(tenant, { query: "postgres vacuum" });
    expect(topicsOf(items)[0]).toBe("Vacuum");
    expect(items[0]!.score).toBeGreaterThan(items[1]!.score);
  });

  it("ranks a memory holding the query's words side by side above one holding the same words far apart", async () => {
    const tenant = await newTenant(ctx);
    // The same terms, counts and lengths: only where the words stand differs. The one far apart is
    // newer, so it would win the tie on the id order.
    await remember(tenant, "Together", "kafka consumer apple banana cherry grape lemon mango melon peach");
    await remember(tenant, "Apart", "kafka apple banana cherry grape lemon mango melon peach consumer");
    await foldAll();
    const { items } = await search(tenant, { query: "kafka consumer" });
    expect(topicsOf(items)).toEqual(["Together", "Apart"]);
    expect(items[0]!.score).toBeGreaterThan(items[1]!.score);
  });

  it("ranks first the memory holding the words side by side, however many hold them more often far apart", async () => {
    const tenant = await newTenant(ctx);
    // Each word twice, far apart: more of these than a 10-item page scores in full by their first
    // scores alone (SEARCH_CANDIDATES and 2 per item wanted: 54), each above the one below by them.
    const fillers = "apple banana cherry grape lemon mango";
    for (let i = 0; i < CANDIDATES + 30; i += 10)
      await Promise.all(
        [...Array(10).keys()].map((k) =>
          remember(tenant, `Apart ${i + k}`, `kafka kafka ${fillers} consumer consumer tag${i + k}`),
        ),
      );
    // Each word once, side by side, as long: ranked after all of them by the sum alone, first in full.
    const together = await remember(tenant, "Together", `kafka consumer ${fillers} melon peach tag`);
    await foldAll();
    for (const limit of [10, 1]) {
      const { items } = await search(tenant, { query: "kafka consumer", limit });
      expect(items[0]!.memory.id).toBe(together.id);
      if (limit > 1) expect(items[0]!.score).toBeGreaterThan(items[1]!.score);
    }
    // Scoring in full no more than MORE_CANDIDATES × (SEARCH_CANDIDATES + 2 per item wanted) — 20
    // for a page of one at SEARCH_CANDIDATES 1 — it is past them, and the page is the first ranking's best.
    const res = await narrow.request("POST", "/api/v1/search", {
      apiKey: tenant.apiKey,
      body: { query: "kafka consumer", limit: 1 },
    });
    expect(res.status).toBe(200);
    expect((res.body.items as Hit[])[0]!.memory.id).not.toBe(together.id);
  }, 120_000);

  it("ranks first the memory holding the words side by side when archived memories hold them more often", async () => {
    const tenant = await newTenant(ctx);
    const fillers = "apple banana cherry grape lemon mango";
    // Archived memories holding the words most often, in the topic too: the first ranking's best —
    // the page's 11 — and so far above the rest that none of those chosen beyond the 54 by the
    // floor rule (within 0.6 of the 11th) reaches down to the memory below.
    const archived = 11;
    for (let i = 0; i < archived; i++) {
      const m = await remember(tenant, `Kafka consumer ${i}`, `kafka consumer kafka consumer kafka consumer old${i}`);
      expect((await ctx.request("POST", `/api/v1/memories/${m.id}/archive`, { apiKey: tenant.apiKey })).status).toBe(
        200,
      );
    }
    // Current ones holding each word twice, far apart: with the archived ones, as many as a 10-item
    // page chooses (SEARCH_CANDIDATES and 2 per item wanted: 54), each above the one below by the sum.
    for (let i = 0; i < CANDIDATES + 22 - archived; i += 1)
      await remember(tenant, `Apart ${i}`, `kafka kafka ${fillers} consumer consumer tag${i}`);
    // Each word once, side by side, in a longer memory: its sum below 0.6 of the archived ones'.
    const together = await remember(tenant, "Together", `kafka consumer ${fillers} ${fillers} melon peach tag`);
    await foldAll();
    for (const limit of [10, 1]) {
      const { items } = await search(tenant, { query: "kafka consumer", limit });
      expect(items[0]!.memory.id).toBe(together.id);
    }
  }, 120_000);

  it("pages past memories a cut list holds that were archived: every current match comes", async () => {
    // One word's list read 302 postings deep for a first page of 50 (SEARCH_LIST_BUDGET at its
    // least), and as many memories chosen as it holds (SEARCH_CANDIDATES 100): the first ranking
    // holds no memory beyond those it chose, though the list was cut.
    const deep = await createTestContext({ SEARCH_LIST_BUDGET: "256", SEARCH_CANDIDATES: "100" });
    const tenant = await newTenant(ctx);
    const currentOnes = 60;
    for (let i = 0; i < currentOnes; i += 10)
      await Promise.all([...Array(10).keys()].map((k) => remember(tenant, "Rollout", `alpha step ${i + k}`)));
    // Newer, with the same counts and lengths: first in the list, which is cut among them.
    for (let i = 0; i < 300; i += 20)
      await Promise.all(
        [...Array(20).keys()].map(async (k) => {
          const m = await remember(tenant, "Rollout", `alpha gone ${i + k}`);
          const res = await ctx.request("POST", `/api/v1/memories/${m.id}/archive`, { apiKey: tenant.apiKey });
          expect(res.status).toBe(200);
        }),
      );
    await foldAll();
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 5; n++) {
      const res = await deep.request("POST", "/api/v1/search", {
        apiKey: tenant.apiKey,
        body: { query: "alpha", limit: 50, ...(cursor ? { cursor } : {}) },
      });
      expect(res.status).toBe(200);
      seen.push(...(res.body.items as Hit[]).map((h) => h.memory.id));
      cursor = res.body.nextCursor;
      if (cursor === null) break;
    }
    expect(seen.length).toBe(currentOnes);
    expect(new Set(seen).size).toBe(currentOnes);
  }, 120_000);

  it("answers a question written as a person asks it with the memory that shares its key words", async () => {
    const tenant = await newTenant(ctx);
    await remember(
      tenant,
      "Webhook retry policy",
      "Failed webhook deliveries are retried five times with exponential backoff.",
    );
    await remember(tenant, "Billing", "Invoices are generated on the first of the month.");
    await remember(tenant, "Support rota", "The support rota rotates every Monday.");
    const { items } = await search(tenant, { query: "What did we decide about retrying failed webhooks?" });
    expect(topicsOf(items)[0]).toBe("Webhook retry policy");
  });

  it("finds a long question's matching words past 32 words nobody stored (a pasted error log, a task description)", async () => {
    const tenant = await newTenant(ctx);
    await remember(tenant, "Dependency pins", "We pin lodash at 4.17.21 across every package.");
    await remember(tenant, "Billing", "Invoices are generated on the first of the month.");
    // 40 words no memory holds or resembles (each weighs an unseen word's idf, the most there is).
    const unseen = Array.from({ length: 40 }, (_, i) => `zq${"xjvkw"[i % 5]}${i}qz`).join(" ");
    const { items } = await search(tenant, { query: `${unseen} which version of lodash do we pin?` });
    expect(topicsOf(items)).toEqual(["Dependency pins"]);
  });

  it("with minScore returns nothing for a question about something never stored, and keeps the answer to a related one", async () => {
    const tenant = await newTenant(ctx);
    await remember(tenant, "Deploy", "We deploy with blue-green on Fly.io after health checks pass.");
    await remember(tenant, "Package manager", "Use pnpm with a frozen lockfile in CI.");
    await remember(tenant, "Logging", "Log JSON to stdout with pino; never log secrets.");
    const unrelated = "How do we rotate the Kafka TLS certificates before a deploy?";
    expect((await search(tenant, { query: unrelated })).items.length).toBeGreaterThan(0);
    expect((await search(tenant, { query: unrelated, minScore: 0.3 })).items).toEqual([]);
    const related = await search(tenant, { query: "how do we deploy to fly.io", minScore: 0.3 });
    expect(topicsOf(related.items)).toEqual(["Deploy"]);
  });

  it("scores with the tenant's own statistics: another tenant's memories never change them", async () => {
    const mine = await newTenant(ctx);
    const other = await newTenant(ctx);
    await remember(mine, "Cache", "Redis cache entries expire after ten minutes.");
    await remember(mine, "Queue", "BullMQ queues live in the same Redis.");
    await remember(mine, "Tokens", "Session tokens expire after thirty days.");
    const query = { query: "redis cache expire" };
    const before = await search(mine, query);
    for (let i = 0; i < 12; i++) await remember(other, `Cache ${i}`, `Cache ${i} entries expire; redis ${i}.`);
    expect(await search(mine, query)).toEqual(before);
    await foldAll();
    expect(await search(mine, query)).toEqual(before);
  });

  it("ranks current memories with the statistics of current memories: revising and archiving leave no trace, before and after the fold", async () => {
    const revised = await newTenant(ctx);
    const fresh = await newTenant(ctx);
    const versions = Array.from({ length: 8 }, (_, i) => `Payments go through Stripe, webhook retry ${i + 1}.`);
    // The revised tenant's history: a memory revised seven times, and one archived.
    await remember(revised, "Deploy", "We deploy to Fly.io from the main branch.");
    let payment = await remember(revised, "Payments", versions[0]!);
    for (const content of versions.slice(1)) {
      const res = await ctx.request("POST", `/api/v1/memories/${payment.id}/revise`, {
        apiKey: revised.apiKey,
        body: { content },
      });
      expect(res.status).toBe(201);
      payment = res.body.memory as Memory;
    }
    const gone = await remember(revised, "Old webhook", "Stripe webhook secrets rotate monthly.");
    expect((await ctx.request("POST", `/api/v1/memories/${gone.id}/archive`, { apiKey: revised.apiKey })).status).toBe(
      200,
    );
    // The same current memories, written once.
    await remember(fresh, "Deploy", "We deploy to Fly.io from the main branch.");
    await remember(fresh, "Payments", versions.at(-1)!);
    const query = { query: "stripe webhook deploy" };
    const scores = async (tenant: Tenant) =>
      (await search(tenant, query)).items.map((h) => [h.memory.topic, h.score] as const);
    const expected = await scores(fresh);
    expect(expected.length).toBe(2);
    expect(await scores(revised)).toEqual(expected);
    await foldAll();
    expect(await scores(revised)).toEqual(expected);
    expect(await scores(fresh)).toEqual(expected);
  });

  it("scores a memory found through a misspelling's replacement at its similarity's share of the word's own score", async () => {
    const tenant = await newTenant(ctx);
    await remember(tenant, "Style", "Use snake_case columns like created_at.");
    await remember(tenant, "Billing", "Invoices are generated on the first of the month.");
    await foldAll();
    const exact = (await search(tenant, { query: "columns" })).items;
    // *columbia* is no word of the tenant's: replaced by *column* (trigram similarity 5/11).
    const guessed = (await search(tenant, { query: "columbia" })).items;
    expect(topicsOf(exact)).toEqual(["Style"]);
    expect(topicsOf(guessed)).toEqual(["Style"]);
    expect(guessed[0]!.score).toBeCloseTo((5 / 11) * exact[0]!.score, 3);
    // So minScore tells the guess from the match.
    expect((await search(tenant, { query: "columbia", minScore: exact[0]!.score * 0.9 })).items).toEqual([]);
  });

  it("reads a misspelling against the current memories' words: a word only a superseded memory held is not offered", async () => {
    const revised = await newTenant(ctx);
    const fresh = await newTenant(ctx);
    const old = await remember(revised, "Orchestration", "We run Kubernetes in every region.");
    const res = await ctx.request("POST", `/api/v1/memories/${old.id}/revise`, {
      apiKey: revised.apiKey,
      body: { content: "We run Nomad in every region." },
    });
    expect(res.status).toBe(201);
    await remember(revised, "Deploys", "Deploys go out as Helm charts.");
    await remember(fresh, "Orchestration", "We run Nomad in every region.");
    await remember(fresh, "Deploys", "Deploys go out as Helm charts.");
    const query = { query: "kubernetis helm charts" };
    const scores = async (tenant: Tenant) =>
      (await search(tenant, query)).items.map((h) => [h.memory.topic, h.score] as const);
    const expected = await scores(fresh);
    expect(expected.map(([topic]) => topic)).toEqual(["Deploys"]);
    expect(await scores(revised)).toEqual(expected);
    await foldAll();
    expect(await scores(revised)).toEqual(expected);
  });

  it("with current false ranks with the statistics of every memory, superseded ones included", async () => {
    const revised = await newTenant(ctx);
    const flat = await newTenant(ctx);
    const versions = [
      "Staging runs on one Postgres.",
      "Staging runs on two Postgres replicas.",
      "Staging has Redis too.",
    ];
    let memory = await remember(revised, "Staging", versions[0]!);
    for (const content of versions.slice(1)) {
      const res = await ctx.request("POST", `/api/v1/memories/${memory.id}/revise`, {
        apiKey: revised.apiKey,
        body: { content },
      });
      memory = res.body.memory as Memory;
    }
    // Current in both tenants.
    const prod = [
      "Production runs Postgres on managed hosts.",
      "Prod backups: Postgres replicas snapshot nightly.",
      "Prod failover promotes one of the Postgres replicas.",
    ];
    for (const content of prod) await remember(revised, "Prod", content);
    // Every version as a current memory of its own: the same documents, so the same statistics.
    for (const content of versions) await remember(flat, "Staging", content);
    for (const content of prod) await remember(flat, "Prod", content);
    await foldAll();
    const byContent = async (tenant: Tenant, body: Record<string, unknown>) =>
      Object.fromEntries((await search(tenant, body)).items.map((h) => [h.memory.content, h.score]));
    const all = await byContent(revised, { query: "postgres replicas prod", current: false });
    const flatScores = await byContent(flat, { query: "postgres replicas prod" });
    // The successor's score may be lifted above its predecessor's; every other score is the flat one.
    // The chain's newest version matches none of the words, and joins it above them.
    expect(Object.keys(all).sort()).toEqual([...Object.keys(flatScores), versions[2]!].sort());
    for (const content of prod) expect(all[content]).toBe(flatScores[content]!);
    expect(all[versions[1]!]).toBe(flatScores[versions[1]!]!);
  });

  it("gives the same scores before and after the statistics are folded", async () => {
    const tenant = await newTenant(ctx);
    await remember(tenant, "Alpha", "Alpha release notes are in the wiki config.");
    await remember(tenant, "Beta", "Beta testers get the release a week early; their config differs.");
    // "configure" stems to a term close to "config": were the pending memories' document frequencies
    // missed, "config" would look unseen and be replaced by its neighbours, this one included.
    await remember(tenant, "Gamma", "Configure gamma ray alerts by hand.");
    const query = { query: "config for the beta release" };
    const before = await search(tenant, query);
    expect(topicsOf(before.items).sort()).toEqual(["Alpha", "Beta"]);
    await foldAll();
    expect(await search(tenant, query)).toEqual(before);
  });

  it("keeps pages consistent while memories that shift the statistics are written between them", async () => {
    const tenant = await newTenant(ctx);
    // Results come from scope "work"; the memories written between pages go to "personal", out of
    // the results but into the statistics: "alpha" turns from rare to common, which would reorder
    // the alpha and beta memories if a page were scored with the new figures.
    for (let i = 0; i < 4; i++)
      await remember(tenant, `Alpha ${i}`, `alpha note ${i} ${"x ".repeat(i)}`, { scope: "work" });
    for (let i = 0; i < 4; i++)
      await remember(tenant, `Beta ${i}`, `beta note ${i} ${"y ".repeat(i)}`, { scope: "work" });
    for (let i = 0; i < 3; i++) await remember(tenant, `Beta extra ${i}`, `beta filler ${i}`, { scope: "personal" });
    const query = { query: "alpha beta", scope: "work", limit: 2 };
    const all = await search(tenant, { ...query, limit: 50 });
    expect(all.items.length).toBe(8);

    const seen: Hit[] = [];
    let page = await search(tenant, query);
    let written = 0;
    while (true) {
      seen.push(...page.items);
      if (!page.nextCursor) break;
      for (let i = 0; i < 10; i++)
        await remember(tenant, `Alpha noise ${written}`, `alpha alpha alpha ${written++}`, { scope: "personal" });
      page = await search(tenant, { ...query, cursor: page.nextCursor });
    }
    expect(seen).toEqual(all.items);
    // And a fresh search now does see the new statistics: the order really did change.
    expect((await search(tenant, { ...query, limit: 50 })).items.map((h) => h.memory.id)).not.toEqual(
      all.items.map((h) => h.memory.id),
    );
  });

  it("ranks first the memory that holds every word of the query, however many memories hold each word better alone", async () => {
    const tenant = await newTenant(ctx);
    // More memories with each word in their topic (its best postings) than a list of a filtered
    // search reads: the memory with both words, once each in its content, is deep in both lists.
    const each = CHAMPION_DEPTH + 40;
    for (const word of ["Alpha", "Beta"])
      for (let i = 0; i < each; i += 8)
        await Promise.all(
          [...Array(8).keys()].map((k) => remember(tenant, `${word} ${i + k}`, `${word} report number ${i + k}.`)),
        );
    const both = await remember(tenant, "Misc", "Both alpha and beta were seen together.");
    await foldAll();
    const first = await search(tenant, { query: "alpha beta", limit: 10 });
    expect(first.items[0]!.memory.id).toBe(both.id);
    // It ranks above every memory that holds one of the words: by the full scores of every match.
    const all = await search(tenant, { query: "alpha beta", limit: 50 });
    expect(all.items[0]!.memory.id).toBe(both.id);
    expect(all.items[0]!.score).toBeGreaterThan(all.items[1]!.score);
    // So does a search with filters that leave it in, ranked alike.
    for (const filters of [{ memoryTypes: ["note"] }, { query: "alpha beta -gamma" }, { query: 'alpha beta -"x y"' }]) {
      const filtered = await search(tenant, { query: "alpha beta", limit: 10, ...filters });
      expect(filtered.items[0]!.memory.id).toBe(both.id);
      expect(filtered.items.map((h) => h.score)).toEqual(all.items.slice(0, 10).map((h) => h.score));
    }
    // Archived memories that match better fill most of the candidates a 10-item page scores in full
    // (CANDIDATES and 2 per item wanted, the page and one more: 54): too few current ones are left,
    // the page is answered from the lists, and the memory with both words, scored in full among the
    // candidates, still leads it.
    const archive = async (i: number) => {
      const m = await remember(tenant, `Alpha beta rollout ${i}`, `Alpha beta rollout ${i}.`);
      expect((await ctx.request("POST", `/api/v1/memories/${m.id}/archive`, { apiKey: tenant.apiKey })).status).toBe(
        200,
      );
    };
    for (let i = 0; i < CANDIDATES + 16; i += 8) await Promise.all([...Array(8).keys()].map((k) => archive(i + k)));
    await foldAll();
    expect((await search(tenant, { query: "alpha beta", limit: 10 })).items[0]!.memory.id).toBe(both.id);
  }, 120_000);

  it("with a list cut off, a page of one still finds the match whose cut-off posting lifts it first, and shows it once", async () => {
    const tenant = await newTenant(ctx);
    // More memories with "beta" in their topic than a list is read: beta's list is cut off, and the
    // memory holding both words, "beta" once in a longer content, is not in the part read. Six
    // memories with the same topic "Alpha" tie with it on what the lists show.
    for (let i = 0; i < CHAMPION_DEPTH + 40; i += 8)
      await Promise.all([...Array(8).keys()].map((k) => remember(tenant, `Beta ${i + k}`, `beta report ${i + k}`)));
    const both = await remember(tenant, "Alpha", "filler one two three four five six seven eight nine ten eleven beta");
    for (let i = 0; i < 6; i++) await remember(tenant, "Alpha", `decoy ${i}`);
    await foldAll();
    // `current: false` ranks from the lists alone.
    const query = { query: "alpha beta", current: false };
    expect((await search(tenant, { ...query, limit: 10 })).items[0]!.memory.id).toBe(both.id);
    const pages: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 12; n++) {
      const page = await search(tenant, { ...query, limit: 1, ...(cursor ? { cursor } : {}) });
      pages.push(...page.items.map((h) => h.memory.id));
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    expect(pages[0]).toBe(both.id);
    expect(pages.filter((id) => id === both.id).length).toBe(1);
  }, 120_000);

  it("with a list cut off, probes a candidate whose missing word would stand beside its other one", async () => {
    const tenant = await newTenant(ctx);
    // Beta's list is cut off (more memories with "beta" in a short topic than a page reads), and
    // the memory with "alpha beta" side by side in a longer topic is not in its part read: by alpha
    // alone its score carries the proximity factor of a word without its pair (1 − PROXIMITY), as do
    // a dozen decoys holding alpha only (twice: above it by that). Beta adds little weight (most memories hold it) but lifts
    // the factor to 1: what the bound must allow for, else the decoys fill the page above it.
    for (let i = 0; i < CHAMPION_DEPTH + 40; i += 10)
      await Promise.all([...Array(10).keys()].map((k) => remember(tenant, `Beta ${i + k}`, `report ${i + k}`)));
    const both = await remember(tenant, "Alpha beta rollout notes", "written after the review");
    for (let i = 0; i < 12; i++) await remember(tenant, `Alpha alpha ${i}`, `decoy ${i}`);
    await foldAll();
    const { items } = await search(tenant, { query: "alpha beta", current: false, limit: 10 });
    expect(items[0]!.memory.id).toBe(both.id);
    // Scored in full: as a search of current memories, which reads its postings by key, scores it.
    const current = await search(tenant, { query: "alpha beta", limit: 10 });
    expect(current.items[0]!.memory.id).toBe(both.id);
    expect(items[0]!.score).toBe(current.items[0]!.score);
  }, 120_000);

  it("with lists cut off, probes every candidate that could still reach the page, however many (a review's fixture)", async () => {
    const tenant = await newTenant(ctx);
    const many = async (n: number, memory: (i: number) => [string, string]) => {
      for (let i = 0; i < n; i += 10)
        await Promise.all([...Array(Math.min(10, n - i)).keys()].map((k) => remember(tenant, ...memory(i + k))));
    };
    const filler = (n: number, tag: string) => Array.from({ length: n }, (_, j) => `${tag}${j}x`).join(" ");
    // Two words that rarely meet: hundreds of candidates hold one of them, each with a bound (its
    // score and the other word's room) above the page's threshold; one memory holds both.
    const each = CHAMPION_DEPTH + 2 * 11 - 1;
    await many(each, (i) => ["Alpha", `alpha note ${i}`]);
    await many(each, (i) => ["Beta", `beta note ${i}`]);
    await many(50, (i) => [`Misc ${i}`, `alpha ${filler(39, "la")} u${i}q`]);
    await many(50, (i) => [`Other ${i}`, `beta ${filler(9, "lb")} v${i}q`]);
    const both = await remember(tenant, "Alpha", `alpha note beta ${filler(20, "mm")}`);
    await foldAll();
    const query = { query: "alpha beta", current: false };
    expect((await search(tenant, { ...query, limit: 50 })).items[0]!.memory.id).toBe(both.id);
    expect((await search(tenant, { ...query, limit: 10 })).items[0]!.memory.id).toBe(both.id);
  }, 180_000);

  it("counts a word in two slots twice when choosing the candidates, as the score does", async () => {
    const tenant = await newTenant(ctx);
    // The misspelling *postgrse* is replaced by *postgres*, which the query also has: a Postgres
    // note matches two of the query's three slots, a Redis note one (a rarer word).
    // More of each than a 10-item page scores in full (CANDIDATES, and 2 per item wanted: the page
    // and one more).
    const more = CANDIDATES + 2 * 11;
    for (let i = 0; i < more + 1; i += 8)
      await Promise.all(
        [...Array(8).keys()].map((k) => remember(tenant, `Redis note ${i + k}`, `Redis report number ${i + k}.`)),
      );
    for (let i = 0; i < more + 18; i += 8)
      await Promise.all(
        [...Array(8).keys()].map((k) => remember(tenant, `Postgres note ${i + k}`, `Postgres report number ${i + k}.`)),
      );
    await foldAll();
    const query = "postgres postgrse redis";
    const all = await search(tenant, { query, limit: 50 });
    expect(all.items[0]!.memory.topic).toStartWith("Postgres note");
    const first = await search(tenant, { query, limit: 10 });
    expect(first.items.map((h) => h.memory.id)).toEqual(all.items.slice(0, 10).map((h) => h.memory.id));
  }, 120_000);

  it("leaves no match out of every page when memories that rank above the cursor are written between pages", async () => {
    const tenant = await newTenant(ctx);
    // Weak matches: the query's word once in a long memory.
    const weak: string[] = [];
    for (let i = 0; i < 30; i++)
      weak.push(
        (await remember(tenant, `Item ${i}`, `wombat once, in a note about other things ${i} ${"filler ".repeat(20)}`))
          .id,
      );
    await foldAll();
    const first = await search(tenant, { query: "wombat", limit: 5 });
    expect(first.items.length).toBe(5);
    // More strong matches than the lists' depth: they take the head of the word's postings, above
    // the cursor, so the weak matches left sit deeper than the next page's position would read.
    for (let i = 0; i < CHAMPION_DEPTH + 20; i++) await remember(tenant, "wombat wombat", `wombat wombat wombat ${i}`);
    await foldAll();
    const seen = first.items.map((h) => h.memory.id);
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await search(tenant, { query: "wombat", limit: 5, cursor });
      seen.push(...page.items.map((h) => h.memory.id));
      cursor = page.nextCursor;
    }
    expect(seen.sort()).toEqual([...weak].sort());
  });

  it("ranks candidates by the tenant's averages now, not those of the day each memory was written", async () => {
    const tenant = await newTenant(ctx);
    const words = (word: string, n: number) => Array(n).fill(word).join(" ");
    // The tenant's first memory, its posting's impact stored under the prior averages (40 words of
    // content): 100 words is long by them.
    const first = await remember(tenant, "Field note", `zebra ${words("savanna", 99)}`);
    await foldAll();
    for (let i = 0; i < 30; i++) await remember(tenant, `Transcript ${i}`, `${words("lorem", 800)} take${i}`);
    await foldAll();
    // Longer than the first by today's averages (~500 words), so each scores below it in full; by
    // stored impact, each is above it (short by the averages it was written under).
    for (let i = 0; i < 70; i++) await remember(tenant, `Sighting ${i}`, `zebra ${words("grassland", 298)} site${i}`);
    await foldAll();
    const everyVersion = await search(tenant, { query: "zebra", current: false, limit: 10 });
    expect(everyVersion.items[0]!.memory.id).toBe(first.id);
    const { items } = await search(tenant, { query: "zebra", limit: 10 });
    expect(items[0]!.memory.id).toBe(first.id);
    expect(items[0]!.score).toBe(everyVersion.items[0]!.score);
  });

  it(`looks up replacements for the first ${FUZZY_MAX_WORDS} words of a query the tenant never used, not more`, async () => {
    const tenant = await newTenant(ctx);
    await remember(tenant, "Database", "Postgres vacuum runs nightly.");
    // Consonants only: the stemmer leaves them as they are, and no stored term resembles them.
    const unseen = Array.from({ length: FUZZY_MAX_WORDS }, (_, i) => `zqxw${"bcdfghjklm"[i]}vv`);
    const found = async (query: string) => topicsOf((await search(tenant, { query })).items);
    expect(await found("postgrse")).toEqual(["Database"]);
    expect(await found(`${unseen.slice(1).join(" ")} postgrse`)).toEqual(["Database"]);
    expect(await found(`${unseen.join(" ")} postgrse`)).toEqual([]);
  });

  it("pages through more equal-scored matches than the lists' depth, newest first, leaving none out", async () => {
    const tenant = await newTenant(ctx);
    // Same lengths, same counts: every memory scores alike for the query, and ties go to the newer.
    // More of them than the lists the first pages read (their depth: CHAMPION_DEPTH and 2 per item
    // wanted), which `current: false` ranks from alone (a search of current memories reads the
    // unfiltered candidates, SEARCH_LIST_BUDGET deep, first).
    const ids: string[] = [];
    const deepest = CHAMPION_DEPTH + 2 * 6;
    for (let i = 0; i < deepest + 30; i++)
      ids.push(
        (await remember(tenant, `Lynx ${String(i).padStart(3, "0")}`, `lynx sighting ${String(i).padStart(3, "0")}`))
          .id,
      );
    await foldAll();
    const seen: Hit[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await search(tenant, { query: "lynx", limit: 5, current: false, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    const scores = seen.map((h) => h.score);
    expect(new Set(scores).size).toBe(1);
    expect(scores.length).toBeGreaterThan(deepest);
    expect(seen.map((h) => h.memory.id)).toEqual([...ids].reverse());
  });

  it("hides superseded memories by default; with current false the successor ranks above the memory it replaced", async () => {
    const tenant = await newTenant(ctx);
    const old = await remember(tenant, "Deploy target", "We deploy to Heroku.");
    const revised = await ctx.request("POST", `/api/v1/memories/${old.id}/revise`, {
      apiKey: tenant.apiKey,
      body: {
        content:
          "We deploy to Fly.io now; we moved off Heroku in March because of its pricing and the regions we need.",
      },
    });
    expect(revised.status).toBe(201);
    const successor = revised.body.memory as Memory;
    const query = { query: "where do we deploy, heroku?" };
    expect((await search(tenant, query)).items.map((h) => h.memory.id)).toEqual([successor.id]);
    const history = await search(tenant, { ...query, current: false });
    expect(history.items.map((h) => h.memory.id)).toEqual([successor.id, old.id]);
  });

  it("with current false, the version that holds now ranks first though it no longer holds the query's words", async () => {
    const tenant = await newTenant(ctx);
    const old = await remember(tenant, "Deploy target", "We deploy the api to Heroku dynos.");
    const revise = async (id: string, content: string) => {
      const res = await ctx.request("POST", `/api/v1/memories/${id}/revise`, {
        apiKey: tenant.apiKey,
        body: { content },
      });
      expect(res.status).toBe(201);
      return res.body.memory as Memory;
    };
    const between = await revise(old.id, "We deploy the api to Render.");
    const now = await revise(between.id, "We deploy the api to Fly.io machines.");
    await foldAll();
    expect((await search(tenant, { query: "heroku" })).items).toEqual([]);
    // The version in between matches nothing and holds no longer: not shown.
    const history = await search(tenant, { query: "heroku", current: false });
    expect(history.items.map((h) => h.memory.id)).toEqual([now.id, old.id]);
    expect(history.items[0]!.score).toBeGreaterThan(history.items[1]!.score);
  });

  it("with current false, a superseded memory that matches best keeps its chain's rank, its successor just above it", async () => {
    const tenant = await newTenant(ctx);
    const old = await remember(tenant, "Release checklist", "Before the release: run the canary checks, tag v0.9.");
    const revised = await ctx.request("POST", `/api/v1/memories/${old.id}/revise`, {
      apiKey: tenant.apiKey,
      body: { topic: "Release process", content: "Ship on Tuesdays; the release manager signs off." },
    });
    expect(revised.status).toBe(201);
    const successor = revised.body.memory as Memory;
    // Matches the question better than the successor does, worse than the old version.
    const other = await remember(tenant, "Canary hosts", "The canary checks run on two hosts in the release pool.");
    await foldAll();
    const history = await search(tenant, {
      query: "what are the canary checks before the release checklist?",
      current: false,
    });
    // Sinking the old version below its weaker successor would put both under `other`.
    expect(history.items.map((h) => h.memory.id)).toEqual([successor.id, old.id, other.id]);
    expect(history.items[0]!.score).toBeGreaterThan(history.items[1]!.score);
  });

  it("with current false, a later version the query excludes takes no place on the page nor ends it", async () => {
    const tenant = await newTenant(ctx);
    const old = await remember(tenant, "Webhook retries", "Webhook retries back off exponentially.");
    const revised = await ctx.request("POST", `/api/v1/memories/${old.id}/revise`, {
      apiKey: tenant.apiKey,
      body: { content: "Webhook retries back off exponentially; the legacy runbook has the limits." },
    });
    expect(revised.status).toBe(201);
    const other = await remember(tenant, "Webhook receiver", "The webhook receiver sits behind the load balancer.");
    const query = { query: "webhook retries -legacy", current: false };
    expect((await search(tenant, query)).items.map((h) => h.memory.id)).toEqual([old.id, other.id]);
    const ids: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const page = await search(tenant, { ...query, limit: 1, ...(cursor ? { cursor } : {}) });
      ids.push(...page.items.map((h) => h.memory.id));
      cursor = page.nextCursor ?? undefined;
      if (!cursor) break;
    }
    expect(ids).toEqual([old.id, other.id]);
  });

  it("finds current memories even when a term's best postings, beyond the depth read first, are all archived", async () => {
    const tenant = await newTenant(ctx);
    // More archived memories than the first read of a term's postings takes (CHAMPION_DEPTH + 2 per
    // wanted item), each with the word in its short topic (the best postings), and a few current
    // ones with it deep in a long content (the worst).
    const archived = CHAMPION_DEPTH + 40;
    const archiveOne = async (i: number) => {
      const m = await remember(tenant, `Zebra ${i}`, `zebra ${i}`);
      const res = await ctx.request("POST", `/api/v1/memories/${m.id}/archive`, { apiKey: tenant.apiKey });
      expect(res.status).toBe(200);
    };
    for (let i = 0; i < archived; i += 8) await Promise.all([...Array(8).keys()].map((k) => archiveOne(i + k)));
    const filler = "the quarterly planning notes mention many unrelated things ".repeat(8);
    for (let i = 0; i < 3; i++) await remember(tenant, `Planning ${i}`, `${filler} and once a zebra crossing ${i}.`);
    const { items } = await search(tenant, { query: "zebra" });
    expect(topicsOf(items).sort()).toEqual(["Planning 0", "Planning 1", "Planning 2"]);
  }, 120_000);

  it("with current false, a successor far down its word's postings still ranks just above its predecessor on the first page", async () => {
    const tenant = await newTenant(ctx);
    // More memories with the word in a short topic (the best postings) than the first read takes.
    const others = CHAMPION_DEPTH + 40;
    for (let i = 0; i < others; i += 8)
      await Promise.all([...Array(8).keys()].map((k) => remember(tenant, `Walrus ${i + k}`, `walrus notes ${i + k}`)));
    const old = await remember(tenant, "Walrus walrus", "walrus");
    // The revision mentions the word once, deep in a long content: among the weakest postings.
    const filler = "the quarterly planning notes mention many unrelated things ".repeat(8);
    const revised = await ctx.request("POST", `/api/v1/memories/${old.id}/revise`, {
      apiKey: tenant.apiKey,
      body: { topic: "Planning", content: `${filler} and once a walrus.` },
    });
    expect(revised.status).toBe(201);
    const successor = revised.body.memory as Memory;
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await search(tenant, { query: "walrus", current: false, limit: 10, ...(cursor ? { cursor } : {}) });
      ids.push(...page.items.map((h) => h.memory.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    // Left to a deeper page, the successor would be lifted above that page's cursor and shown nowhere.
    expect(ids.indexOf(successor.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(successor.id)).toBe(ids.indexOf(old.id) - 1);
    expect(ids.indexOf(old.id)).toBeLessThan(10);
    expect(new Set(ids).size).toBe(ids.length);
  }, 120_000);

  it("computes the stored impact with the service's own saturation (the SQL and TypeScript formulas agree)", async () => {
    const cases = [
      [1, 0, 3, 20, 6, 40],
      [0, 2, 4, 80, 5, 30],
      [2, 3, 10, 300, 8, 50],
      [0, 1, 0, 1, 6, 40],
    ] as const;
    for (const [topicTf, contentTf, topicLength, contentLength, avgTopic, avgContent] of cases) {
      const rows = await ctx.deps.db.execute<{ s: number }>(
        sql`select amem_search_saturation(${topicTf}, ${contentTf}, ${topicLength}, ${contentLength}, ${avgTopic}, ${avgContent})::float8 as s`,
      );
      const expected = saturation(
        { topicTf, contentTf, topicLength, contentLength, firstPosition: 1 },
        { documents: 1, avgTopic, avgContent },
      );
      expect(Number(rows[0]!.s)).toBeCloseTo(expected, 10);
    }
  });
});
