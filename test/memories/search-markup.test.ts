import { describe, expect, it, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { expectStatsEqualRecount } from "./search-recount";
import { foldAll, legacyMemories, memoriesWithStalePostings } from "./search-reindex";
import { foundIds, rememberNote } from "./search-requests";

/*
 * Words written inside angle brackets (amem_search_text reads '<' and '>' as spaces): Postgres's
 * parser took "<Button>" and "Promise<Response>" for markup and dropped them with their words. And
 * migration 0052, which read the memories holding '<' or '>' again.
 */
const ctx = await createTestContext();
setDefaultTimeout(60_000);
const ROOT = join(import.meta.dir, "..", "..");

const remember = (tenant: Tenant, topic: string, content: string) => rememberNote(ctx, tenant, topic, content);
const found = (tenant: Tenant, query: string) => foundIds(ctx, tenant, query);

describe("search of text with angle brackets", () => {
  it("finds the words of a component, a generic type and an element by name, as a phrase, and excludes them", async () => {
    const tenant = await newTenant(ctx);
    const button = await remember(tenant, "UI library", "We render every form action with the <Button> component");
    const fetcher = await remember(tenant, "HTTP client", "fetchJson returns Promise<Response> and never throws");
    const table = await remember(tenant, "Layout bug", "The </table> closing tag was missing in the report");
    await remember(tenant, "Unrelated", "The deploy pipeline runs on every merge");

    expect(await found(tenant, "Button")).toEqual([button]);
    expect((await found(tenant, "which button do we use?"))[0]).toBe(button);
    expect(await found(tenant, "<Button>")).toEqual([button]);
    expect(await found(tenant, "response")).toEqual([fetcher]);
    expect(await found(tenant, "table")).toEqual([table]);
    expect(await found(tenant, '"Promise<Response>"')).toEqual([fetcher]);
    expect(await found(tenant, "component -button")).toEqual([]);
  });
});

describe("migration 0052: memories indexed before angle brackets were read as spaces", () => {
  /** amem_search_text as migration 0051 installed it. */
  async function legacyText(): Promise<string> {
    const text = await Bun.file(join(ROOT, "migrations", "0051_search_text_dates.sql")).text();
    const start = text.indexOf("CREATE OR REPLACE FUNCTION amem_search_text(");
    const open = text.indexOf("$$", start);
    return text.slice(start, text.indexOf("$$", open + 2) + 2);
  }

  it("reads them again: found by the bracketed word, postings as a fresh index, statistics equal to a recount", async () => {
    const tenant = await newTenant(ctx);
    const plain = await remember(tenant, "plain", "A memory about deploys with no markup");
    const functions = {
      legacy: await legacyText(),
      current: await Bun.file(join(ROOT, "shared", "store", "db", "functions", "amem_search_text.sql")).text(),
    };
    const [button, archived] = await legacyMemories(ctx, tenant, functions, "UI", [
      "Use the <Button> component",
      "Old <Modal> component",
    ]);
    // A comparison, not markup: its document does not change, so it is not read again.
    await legacyMemories(ctx, tenant, functions, "Limits", ["Keep a < b and c > d"]);
    await foldAll(ctx, tenant);
    expect(await found(tenant, "button")).toEqual([]);
    await ctx.request("POST", `/api/v1/memories/${archived}/archive`, { apiKey: tenant.apiKey });
    const [pending] = await legacyMemories(ctx, tenant, functions, "Types", ["Returns Vec<String> on success"]);

    // The migration's own statement, as it runs, scoped to this tenant.
    const migration = await Bun.file(join(ROOT, "migrations", "0052_search_text_angle_brackets.sql")).text();
    const reindex = migration.slice(migration.lastIndexOf("SELECT amem_reindex_memories("));
    const scoped = reindex.replace("WHERE ", `WHERE user_id = '${tenant.userId}' AND `).replace(/;\s*$/, "");
    const [row] = await ctx.deps.db.execute<{ amem_reindex_memories: number }>(sql.raw(scoped));
    expect(row!.amem_reindex_memories).toBe(3);
    await foldAll(ctx, tenant);
    await expectStatsEqualRecount(ctx, tenant.userId);
    expect(await memoriesWithStalePostings(ctx, tenant)).toEqual([]);
    expect(await found(tenant, "button")).toEqual([button!]);
    expect(await found(tenant, "string")).toEqual([pending!]);
    expect(await found(tenant, "deploys")).toEqual([plain]);
  });
});
