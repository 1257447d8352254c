import { describe, expect, it, setDefaultTimeout } from "bun:test";
import { createTestContext, foldAllSearchStats, newTenant, type Tenant } from "../helpers";

// Lists cut: 1,200 postings over all of a query's terms (400 each for three, split evenly).
const cut = await createTestContext({ SEARCH_LIST_BUDGET: "1200" });
// Every list read whole: a ranking of every match, for comparison.
const whole = await createTestContext();
// ~900 memories written through the API and a fold of the test database: seconds.
setDefaultTimeout(90_000);

type Hit = { memory: { id: string }; score: number };

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

describe("list depths of a search whose lists are cut (README, Search)", () => {
  it("reads the common words' lists deeper by what a rare word's short list leaves of the budget", async () => {
    const tenant = await newTenant(cut);
    // 450 memories naming each common word twice: every posting of theirs outranks, in its list,
    // those of the memories below, which sit at 451–453 of both lists — past the 400 of an even split.
    const writes: [string, string][] = [];
    for (let i = 0; i < 450; i++) writes.push([`Giraffe ${i}`, `giraffe giraffe tally${i}`]);
    for (let i = 0; i < 450; i++) writes.push([`Zebra ${i}`, `zebra zebra tally${i}`]);
    for (let at = 0; at < writes.length; at += 25)
      await Promise.all(writes.slice(at, at + 25).map(([topic, content]) => remember(tenant, topic, content)));
    // The rare word: its list is read whole (2 postings), and the rest of its share goes to the others.
    for (let i = 0; i < 2; i++) await remember(tenant, `Okapi ${i}`, `okapi seen at dawn${i}`);
    // Both common words once each: below every tally memory in both lists, above them in score.
    const both: string[] = [];
    for (let i = 0; i < 3; i++)
      both.push(await remember(tenant, `Survey ${i}`, `a giraffe beside a zebra at the waterhole${i}`));
    await foldAllSearchStats(cut);
    const query = "okapi giraffe zebra";
    const full = await topTen(whole, tenant, query);
    // The ranking of every match: the okapi memories, then the three holding both common words.
    expect(
      full
        .slice(2, 5)
        .map((h) => h.memory.id)
        .sort(),
    ).toEqual([...both].sort());
    const page = await topTen(cut, tenant, query);
    expect(page.map((h) => [h.memory.id, h.score])).toEqual(full.map((h) => [h.memory.id, h.score]));
  });
});
