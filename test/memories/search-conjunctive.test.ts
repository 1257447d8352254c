import { describe, expect, it, setDefaultTimeout } from "bun:test";
import { conjunctiveCandidates } from "@amem/store";
import { createTestContext, foldAllSearchStats, newTenant, type Tenant } from "../helpers";

// Lists cut short: 256 postings over all of a query's terms, each list still read CHAMPION_DEPTH +
// 2 per item wanted deep (220 for a page of 10), as a large tenant's lists are cut at 8,192.
const cut = await createTestContext({ SEARCH_LIST_BUDGET: "256" });
// Every list read whole: a ranking of every match, for comparison.
const whole = await createTestContext();
// A few hundred memories written through the API and a fold of the test database: seconds.
setDefaultTimeout(90_000);

type Hit = { memory: { id: string; topic: string }; score: number };

async function remember(tenant: Tenant, topic: string, content: string): Promise<string> {
  const res = await cut.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "note", topic, content },
  });
  expect(res.status).toBe(201);
  return res.body.memory.id;
}

async function topTen(ctx: typeof cut, tenant: Tenant, query: string): Promise<Hit[]> {
  const res = await ctx.request("POST", "/api/v1/search", { apiKey: tenant.apiKey, body: { query, limit: 10 } });
  expect(res.status).toBe(200);
  return res.body.items;
}

describe("conjunctive candidates (README, Search)", () => {
  it("stores a memory holding a word too long for the index keyed by tenant (a 2,030-byte blob)", async () => {
    const tenant = await newTenant(cut);
    const id = await remember(tenant, "Build hash", `the artifact digest is ${"a1".repeat(1015)} today`);
    expect((await topTen(cut, tenant, "artifact digest"))[0]!.memory.id).toBe(id);
  });

  it("looks up terms holding quotes and backslashes as text, and leaves out a term longer than a lexeme", async () => {
    const tenant = await newTenant(cut);
    // The English parser never makes such a term from a query; the lookup must still not fail on one.
    const slots = [["o'brien\\x"], ["quokka"], ["wombat"]];
    const found = await conjunctiveCandidates(cut.deps.db, tenant.userId, slots, slots.flat(), {
      limit: 10,
      read: 10,
      weights: { topic: 3, content: 1 },
    });
    expect(found).toEqual([]);
    // A term longer than any lexeme among the terms ranked (a forged cursor's): left out, not an error.
    const long = "€".repeat(683);
    const ranked = await conjunctiveCandidates(cut.deps.db, tenant.userId, slots, [...slots.flat(), long], {
      limit: 10,
      read: 10,
      weights: { topic: 3, content: 1 },
    });
    expect(ranked).toEqual([]);
  });

  it("a search whose lists were cut still finds the memories holding every word, deep in each list", async () => {
    const tenant = await newTenant(cut);
    // Each pair of the three words, twice each in a short memory: 230 of each pair, so every word's
    // list holds 460 postings above the memories below, more than the 220 read of each.
    const pairs = [
      ["quokka", "wombat"],
      ["wombat", "dingo"],
      ["quokka", "dingo"],
    ];
    for (const [a, b] of pairs)
      for (let i = 0; i < 230; i++) await remember(tenant, `Sighting ${i}`, `${a} ${a} ${b} ${b} tally${i}`);
    // Once each, among other words: every posting of theirs weighs less than a pair memory's, but
    // three words outscore two.
    const every: string[] = [];
    for (let i = 0; i < 3; i++)
      every.push(
        await remember(tenant, `Survey ${i}`, `field survey counted quokka wombat dingo near creek${i} today`),
      );
    await foldAllSearchStats(cut);
    const query = "quokka wombat dingo";
    const full = await topTen(whole, tenant, query);
    // The ranking of every match puts the three memories holding every word first.
    expect(
      full
        .slice(0, 3)
        .map((h) => h.memory.id)
        .sort(),
    ).toEqual([...every].sort());
    const page = await topTen(cut, tenant, query);
    expect(page.map((h) => [h.memory.id, h.score])).toEqual(full.map((h) => [h.memory.id, h.score]));

    // A word longer than the index holds (2,040 bytes: 680 three-byte syllables) in a memory and in
    // the query: the memory is stored, and the lookup leaves the word out instead of failing.
    const long = "한".repeat(680);
    const holder = await remember(tenant, "Survey long", `quokka wombat dingo ${long}`);
    const found = await topTen(cut, tenant, `quokka wombat dingo ${long}`);
    expect(found[0]!.memory.id).toBe(holder);
  });
});
