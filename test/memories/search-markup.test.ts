import { describe, expect, it } from "bun:test";
import { newTenant } from "../helpers";
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
 * Words written inside angle brackets (amem_search_text reads '<' and '>' as spaces, after unaccent):
 * Postgres's parser took "<Button>" and "Promise<Response>" for markup and dropped them with their
 * words, and unaccent folds «Button» and ＜Tag＞ into such brackets. And migrations 0052 and 0053,
 * which read the memories holding them again.
 */
const { ctx, remember, found } = await textSearchSuite();

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

  it("finds words in guillemets and fullwidth brackets, which unaccent folds into angle brackets", async () => {
    const tenant = await newTenant(ctx);
    const french = await remember(tenant, "Interface", "Le composant «Bouton» et la fenêtre ‹Modale›");
    const fullwidth = await remember(tenant, "タグ", "設定ファイルの＜Tag＞要素");
    expect(await found(tenant, "bouton")).toEqual([french]);
    expect(await found(tenant, "modale")).toEqual([french]);
    expect(await found(tenant, "tag")).toEqual([fullwidth]);
  });
});

describe("migrations 0052 and 0053: memories indexed before brackets were read as spaces", () => {
  it("reads them again: found by the bracketed word, postings as a fresh index, statistics equal to a recount", async () => {
    const tenant = await newTenant(ctx);
    const plain = await remember(tenant, "plain", "A memory about deploys with no markup");
    const functions = {
      legacy: await functionInMigration("0051_search_text_dates.sql", "amem_search_text"),
      current: await currentFunction("amem_search_text"),
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

    expect(await runMigrationReindex(ctx, tenant, "0052_search_text_angle_brackets.sql")).toBe(3);
    await foldAll(ctx, tenant);
    await expectStatsEqualRecount(ctx, tenant.userId);
    expect(await memoriesWithStalePostings(ctx, tenant)).toEqual([]);
    expect(await found(tenant, "button")).toEqual([button!]);
    expect(await found(tenant, "string")).toEqual([pending!]);
    expect(await found(tenant, "deploys")).toEqual([plain]);
  });

  it("0053 reads again the memories whose folded brackets came back before the parser", async () => {
    const tenant = await newTenant(ctx);
    const functions = {
      legacy: await functionInMigration("0052_search_text_angle_brackets.sql", "amem_search_text"),
      current: await currentFunction("amem_search_text"),
    };
    const [french] = await legacyMemories(ctx, tenant, functions, "Interface", ["Le composant «Bouton»"]);
    // Outside ASCII but nothing folded into a bracket: its document does not change.
    await legacyMemories(ctx, tenant, functions, "Café", ["Le café est servi"]);
    await foldAll(ctx, tenant);
    expect(await found(tenant, "bouton")).toEqual([]);
    expect(await runMigrationReindex(ctx, tenant, "0053_search_text_folded_punctuation.sql")).toBe(1);
    await foldAll(ctx, tenant);
    await expectStatsEqualRecount(ctx, tenant.userId);
    expect(await memoriesWithStalePostings(ctx, tenant)).toEqual([]);
    expect(await found(tenant, "bouton")).toEqual([french!]);
  });
});
