import { describe, expect, it } from "bun:test";
import { newTenant, type Tenant } from "../helpers";
import { expectStatsEqualRecount } from "./search-recount";
import {
  currentFunction,
  foldAll,
  functionInMigration,
  legacyMemories,
  memoriesWithStalePostings,
  runMigrationReindex,
} from "./search-reindex";
import { textSearchSuite } from "./search-requests";

/*
 * ISO dates read with their month's name (amem_search_dates): agents write 2026-04-23, people ask
 * about "April". And migration 0051, which read the memories holding such a date again.
 */
const { ctx, remember, found } = await textSearchSuite();

describe("search by dates", () => {
  it("finds a memory dated 2026-04-23 by its month's name, by the day, and by the date as written", async () => {
    const tenant = await newTenant(ctx);
    const upgrade = await remember(tenant, "Upgrade", "Upgraded the runtime to v0.6.28 on 2026-04-23 after the freeze");
    const review = await remember(tenant, "Review", "Quarterly review held 2026-04-11; next one 2026-07");
    const march = await remember(tenant, "Migration", "Staging migrated 2025-03-18T09:30Z");
    // After a letter or a digit it is no date: a version, a longer number.
    await remember(tenant, "Tag", "Tagged v2026-04-30 and build 12026-04-01");

    expect((await found(tenant, "what did we upgrade in late april?")).slice(0, 1)).toEqual([upgrade]);
    expect(new Set(await found(tenant, "April"))).toEqual(new Set([upgrade, review]));
    expect((await found(tenant, "April 23"))[0]).toBe(upgrade);
    expect(await found(tenant, "July")).toEqual([review]);
    expect(await found(tenant, "march 2025")).toEqual([march]);
    // The date as written still finds it, as a word and as a phrase; excluded, it hides only it.
    expect((await found(tenant, "2026-04-23"))[0]).toBe(upgrade);
    expect(await found(tenant, '"2026-04-23"')).toEqual([upgrade]);
    expect(await found(tenant, '"2026-04-11"')).toEqual([review]);
    expect(new Set(await found(tenant, "april -2026-04-23"))).toEqual(new Set([review]));
  });

  it("reads a date inside a name, beside Chinese or Japanese, or written with Unicode dashes as the date", async () => {
    const tenant = await newTenant(ctx);
    const backup = await remember(tenant, "Backup", "Restored backup-2026-04-23.sql to staging");
    const japanese = await remember(tenant, "リリース", "リリースは2026-04-23です");
    // U+2011, the non-breaking hyphen language models write in dates: unaccent folds it to "-".
    const dashes = await remember(tenant, "Cutover", "Cut over on 2026\u201104\u201123");
    const other = await remember(tenant, "リリース", "リリースは来週です");
    const all = new Set([backup, japanese, dashes]);
    expect(new Set(await found(tenant, "2026-04-23"))).toEqual(all);
    expect(new Set(await found(tenant, '"2026-04-23"'))).toEqual(all);
    expect(new Set(await found(tenant, "april"))).toEqual(all);
    expect(await found(tenant, "リリース -2026-04-23")).toEqual([other]);
  });
});

describe("migration 0051: memories indexed before dates were read with their month", () => {
  /** Memories written as the service wrote them before the migration. */
  const legacy = async (tenant: Tenant, contents: string[], topic = "Release 2026-05") =>
    legacyMemories(
      ctx,
      tenant,
      {
        legacy: await functionInMigration("0050_search_text_accents_cjk.sql", "amem_search_text"),
        current: await currentFunction("amem_search_text"),
      },
      topic,
      contents,
    );

  it("reads them again: found by their month, postings as a fresh index, statistics equal to a recount", async () => {
    const tenant = await newTenant(ctx);
    const plain = await remember(tenant, "plain", "A memory about deploys with no date");
    const [dated, archived] = await legacy(tenant, ["Cut over on 2026-04-23", "Rolled back 2026-04-24"]);
    await foldAll(ctx, tenant);
    expect(await found(tenant, "april")).toEqual([]);
    await ctx.request("POST", `/api/v1/memories/${archived}/archive`, { apiKey: tenant.apiKey });
    const [pending] = await legacy(tenant, ["Freeze from 2026-06-01"]);
    // No ASCII date in it: its U+2011 dashes read as "-" only once unaccent has folded them.
    const [dashes] = await legacy(tenant, ["Window 2026\u201110\u201101"], "Window");

    // The migration's own statement, as it runs.
    expect(await runMigrationReindex(ctx, tenant, "0051_search_text_dates.sql")).toBe(4);
    await foldAll(ctx, tenant);
    await expectStatsEqualRecount(ctx, tenant.userId);
    expect(await memoriesWithStalePostings(ctx, tenant)).toEqual([]);
    expect(await found(tenant, "april")).toEqual([dated!]);
    expect(await found(tenant, "june")).toEqual([pending!]);
    expect(await found(tenant, "october")).toEqual([dashes!]);
    expect(await found(tenant, "deploys")).toEqual([plain]);
  });
});
