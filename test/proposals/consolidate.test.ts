import { beforeAll, describe, expect, it } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestContext, newTenant, startWorkers, type Tenant } from "../helpers";
import { newId } from "@amem/platform";
import { consolidate, PROPOSALS_PER_TENANT, proposalRationale, proposedEdge, takeWithinCap } from "@amem/core";
import type { ProbeMatch } from "@amem/store";
import { memoryAt } from "./helpers";

const ctx = await createTestContext();
await startWorkers(ctx, ["maintenance"]);

const runJob = () => ctx.deps.jobs.run("consolidate", {}, `consolidate-${newId()}`);
/** A pass run directly (unit level), `minutesAhead` in the future so everything written counts as settled. */
const runPass = (
  options: { capPerTenant?: number; minutesAhead?: number; passBudgetMs?: number; statementTimeoutMs?: number } = {},
) =>
  ctx.deps.db.transaction((tx) =>
    consolidate(tx, {
      now: new Date(Date.now() + (options.minutesAhead ?? 0) * 60_000),
      probesPerRun: 100_000,
      capPerTenant: options.capPerTenant,
      passBudgetMs: options.passBudgetMs,
      statementTimeoutMs: options.statementTimeoutMs,
    }),
  );

/**
 * The job visits tenants with new material never-consolidated first, oldest first, within a probe
 * budget (CONSOLIDATE_PROBES_PER_RUN) and TENANTS_PER_RUN: on a test database that earlier test
 * files (or earlier runs) filled, their tenants would use the budget up before this file's tenants
 * are reached. Their cursors are moved to their newest memory and fact, as a pass over them would
 * leave them (consolidating them for real took minutes on a long-lived test database), so each
 * test's own tenant is the only new material when it runs the job.
 */
beforeAll(async () => {
  await ctx.deps.sql`
    insert into consolidation_cursors (user_id, memory_created_at, memory_id, fact_recorded_at, fact_id, run_at)
    select u.id, m.created_at, m.id, f.recorded_at, f.id, now()
    from users u
    left join lateral (
      select created_at, id from memories where user_id = u.id order by created_at desc, id desc limit 1) m on true
    left join lateral (
      select recorded_at, id from facts where user_id = u.id order by recorded_at desc, id desc limit 1) f on true
    on conflict (user_id) do update set
      memory_created_at = excluded.memory_created_at, memory_id = excluded.memory_id,
      fact_recorded_at = excluded.fact_recorded_at, fact_id = excluded.fact_id, run_at = excluded.run_at`;
});

async function proposalsOf(tenant: Tenant) {
  const res = await ctx.request("GET", "/api/v1/proposals?limit=100", { apiKey: tenant.apiKey });
  expect(res.status).toBe(200);
  return res.body.proposals as {
    fromId: string;
    toId: string;
    edgeType: string;
    memoryType: string;
    rationale: string;
    similarity: number;
  }[];
}
const pairs = (ps: { fromId: string; toId: string; edgeType: string }[]) =>
  ps.map((p) => `${p.fromId}>${p.toId}:${p.edgeType}`).sort();

/** Long enough that one changed word keeps the trigram similarity well above 0.6; a nonce keeps it unique to the test. */
const text = (nonce: string, variant = "") =>
  `Deployment ${nonce}: we run the api and workers as two processes behind one load balancer, with migrations first ${variant}`;

describe("consolidate job", () => {
  it("proposes supersedes for same-type decisions and extends across types, within one scope and project, newer → older", async () => {
    const tenant = await newTenant(ctx);
    const n = crypto.randomUUID();
    const at = (
      memoryType: "decision" | "note",
      content: string,
      minutesAgo: number,
      where: { scope?: string; project?: string } = { scope: "work", project: "amem" },
    ) => memoryAt(ctx, tenant, { memoryType, topic: "deploy", content, ...where }, minutesAgo);
    const oldDecision = await at("decision", text(n, "v1"), 30);
    const newDecision = await at("decision", text(n, "v2"), 20);
    const note = await at("note", text(n, "as noted"), 10);
    // Not proposed: another scope, another project, no project, unrelated text.
    await at("decision", text(n, "other scope"), 25, { scope: "personal", project: "amem" });
    await at("decision", text(n, "other project"), 25, { scope: "work", project: "elsewhere" });
    await at("decision", text(n, "no project"), 25, { scope: "work" });
    await at("decision", `Unrelated ${n}: lunch is at noon on fridays in the small kitchen`, 5);
    // Patterns are not superseding types: two similar patterns extend.
    const oldPattern = await memoryAt(
      ctx,
      tenant,
      { memoryType: "pattern", topic: "p", content: text(n, "pattern a"), scope: "lab" },
      30,
    );
    const newPattern = await memoryAt(
      ctx,
      tenant,
      { memoryType: "pattern", topic: "p", content: text(n, "pattern b"), scope: "lab" },
      20,
    );

    const result = await runJob();
    expect(result.skipped).toBe(0);
    expect(result.proposals).toBeGreaterThanOrEqual(4);
    const proposals = await proposalsOf(tenant);
    expect(pairs(proposals)).toEqual(
      pairs([
        { fromId: newDecision.id, toId: oldDecision.id, edgeType: "supersedes" },
        { fromId: note.id, toId: oldDecision.id, edgeType: "extends" },
        { fromId: note.id, toId: newDecision.id, edgeType: "extends" },
        { fromId: newPattern.id, toId: oldPattern.id, edgeType: "extends" },
      ]),
    );
    for (const p of proposals) {
      expect(p.similarity).toBeGreaterThanOrEqual(0.6);
      expect(p.similarity).toBeLessThanOrEqual(1);
      expect(p.rationale).not.toContain(n); // never quotes memory text
    }
    const supersedes = proposals.find((p) => p.edgeType === "supersedes")!;
    expect(supersedes.memoryType).toBe("decision");
    expect(supersedes.rationale).toBe(`newer decision on the same topic, ${supersedes.similarity.toFixed(2)} similar`);
    expect(proposals.find((p) => p.fromId === note.id && p.toId === oldDecision.id)!.rationale).toMatch(
      /^related note and decision, 0\.\d\d similar$/,
    );
  });

  it("never proposes a pair twice: a re-run, a rejected pair and a lost cursor add nothing", async () => {
    const tenant = await newTenant(ctx);
    const n = crypto.randomUUID();
    const a = await memoryAt(ctx, tenant, { memoryType: "preference", topic: "editor", content: text(n, "a") }, 30);
    const b = await memoryAt(ctx, tenant, { memoryType: "preference", topic: "editor", content: text(n, "b") }, 20);
    await runJob();
    const first = await proposalsOf(tenant);
    expect(pairs(first)).toEqual([`${b.id}>${a.id}:supersedes`]);
    await runJob();
    expect(await proposalsOf(tenant)).toEqual(first);
    expect(
      (
        await ctx.request("POST", `/api/v1/proposals/${(first[0] as unknown as { id: string }).id}/reject`, {
          apiKey: tenant.apiKey,
        })
      ).status,
    ).toBe(200);
    await ctx.deps.sql`delete from consolidation_cursors where user_id = ${tenant.userId}`;
    await runJob();
    const after = await proposalsOf(tenant);
    expect(after.length).toBe(1);
    expect(after[0]).toMatchObject({ fromId: b.id, toId: a.id, status: "rejected" });
  });

  it("does not propose again a rejected pair once one of its memories is revised", async () => {
    const tenant = await newTenant(ctx);
    const n = crypto.randomUUID();
    const a = await memoryAt(ctx, tenant, { memoryType: "decision", topic: "postgres", content: text(n, "on 16") }, 30);
    const b = await memoryAt(ctx, tenant, { memoryType: "decision", topic: "postgres", content: text(n, "on 17") }, 20);
    await runJob();
    const [proposed] = (await proposalsOf(tenant)) as unknown as { id: string; fromId: string; toId: string }[];
    expect([proposed!.fromId, proposed!.toId]).toEqual([b.id, a.id]);
    const rejected = await ctx.request("POST", `/api/v1/proposals/${proposed!.id}/reject`, { apiKey: tenant.apiKey });
    expect(rejected.status).toBe(200);
    const revised = await ctx.request("POST", `/api/v1/memories/${b.id}/revise`, {
      apiKey: tenant.apiKey,
      body: { content: text(n, "on 17.2") },
    });
    expect(revised.status).toBe(201);
    await runPass({ minutesAhead: 2 });
    // The revision carries the claim the person judged: no "17.2 supersedes 16" after "17 supersedes 16" was rejected.
    expect(pairs(await proposalsOf(tenant))).toEqual([`${b.id}>${a.id}:supersedes`]);
  });

  it("only pairs current memories of one tenant", async () => {
    const one = await newTenant(ctx);
    const two = await newTenant(ctx);
    const n = crypto.randomUUID();
    await memoryAt(ctx, one, { memoryType: "decision", topic: "t", content: text(n, "tenant one") }, 30);
    await memoryAt(ctx, two, { memoryType: "decision", topic: "t", content: text(n, "tenant two") }, 20);
    const archived = await memoryAt(ctx, two, { memoryType: "decision", topic: "t", content: text(n, "archived") }, 25);
    await ctx.deps.sql`update memories set status = 'archived' where id = ${archived.id}`;
    await runJob();
    expect(await proposalsOf(one)).toEqual([]);
    expect(await proposalsOf(two)).toEqual([]);
  });

  it("leaves writes of the last minute for the next pass, then finds them", async () => {
    const tenant = await newTenant(ctx);
    const n = crypto.randomUUID();
    const old = await memoryAt(ctx, tenant, { memoryType: "blocker", topic: "ci", content: text(n, "old") }, 30);
    const fresh = await memoryAt(ctx, tenant, { memoryType: "blocker", topic: "ci", content: text(n, "fresh") }, 0);
    await runJob();
    expect(await proposalsOf(tenant)).toEqual([]);
    await runPass({ minutesAhead: 2 });
    expect(pairs(await proposalsOf(tenant))).toEqual([`${fresh.id}>${old.id}:supersedes`]);
  });

  it("stops a tenant at the cap without losing the rest: the next pass proposes what was left", async () => {
    const tenant = await newTenant(ctx);
    const n = crypto.randomUUID();
    const olds = [];
    for (let i = 0; i < 5; i++)
      olds.push(await memoryAt(ctx, tenant, { memoryType: "note", topic: "n", content: text(n, `old ${i}`) }, 40 - i));
    await runPass({ capPerTenant: 3 });
    // Pairs among the five: 10; at most 3 per pass.
    expect((await proposalsOf(tenant)).length).toBe(3);
    await runPass({ capPerTenant: 3 });
    expect((await proposalsOf(tenant)).length).toBe(6);
    await runPass({ capPerTenant: 3 });
    await runPass({ capPerTenant: 3 });
    await runPass({ capPerTenant: 3 });
    const all = await proposalsOf(tenant);
    expect(all.length).toBe(10);
    expect(new Set(pairs(all)).size).toBe(10);
    expect(PROPOSALS_PER_TENANT).toBe(200);
  });

  it("proposes retracting the older of two near-duplicate current facts about one subject", async () => {
    const tenant = await newTenant(ctx);
    const n = crypto.randomUUID().slice(0, 8);
    const fact = (subject: string, predicate: string, value: string, minutesAgo: number) =>
      memoryAt(
        ctx,
        tenant,
        {
          memoryType: "fact",
          topic: "f",
          content: `${subject} ${predicate} ${value} ${crypto.randomUUID()}`,
          facts: [{ subject, predicate, value }],
        },
        minutesAgo,
      );
    const older = (await fact(`Alice-${n}`, "works at", "Acme Corporation", 30)).factIds[0]!;
    const newer = (await fact(`alice-${n}`, "works at", "Acme Corporation Ltd", 20)).factIds[0]!;
    await fact(`alice-${n}`, "likes", "green tea", 15); // another predicate, not similar
    await fact(`bob-${n}`, "works at", "Acme Corporation", 15); // another subject
    await runJob();
    const res = await ctx.request("GET", "/api/v1/fact-proposals", { apiKey: tenant.apiKey });
    expect(res.body.count).toBe(1);
    const [p] = res.body.proposals;
    expect(p).toEqual({
      id: p.id,
      fromId: newer,
      toId: older,
      rationale: `same subject, similar predicate and value, ${p.similarity.toFixed(2)} similar`,
      similarity: p.similarity,
      status: "proposed",
      createdAt: p.createdAt,
      decidedAt: null,
    });
    expect(p.similarity).toBeGreaterThanOrEqual(0.6);
    await runJob();
    expect((await ctx.request("GET", "/api/v1/fact-proposals", { apiKey: tenant.apiKey })).body.count).toBe(1);
  });

  it("survives probes the statement timeout cancels: the pass completes, and the next one proposes what they would have", async () => {
    const tenant = await newTenant(ctx);
    const n = crypto.randomUUID();
    const old = await memoryAt(ctx, tenant, { memoryType: "decision", topic: "d", content: text(n, "old") }, 30);
    const fresh = await memoryAt(ctx, tenant, { memoryType: "decision", topic: "d", content: text(n, "new") }, 20);
    // Every memory probe reads proposals; a lock held on the table makes each one outlast the timeout.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const lockTaken = new Promise<void>((r) => (locked = r));
    const holder = ctx.deps.db.transaction(async (tx) => {
      await tx.execute(sql`lock table proposals in access exclusive mode`);
      locked();
      await held;
    });
    await lockTaken;
    const blocked = await runPass({ statementTimeoutMs: 300 }).finally(release);
    await holder;
    expect(blocked.skipped).toBe(0);
    expect(blocked.memoriesProbed).toBe(0);
    expect(await proposalsOf(tenant)).toEqual([]);
    await runPass();
    expect(pairs(await proposalsOf(tenant))).toEqual([`${fresh.id}>${old.id}:supersedes`]);
  });

  it("stops starting work once the pass's time budget is spent, and later passes reach the rest", async () => {
    const tenants = [await newTenant(ctx), await newTenant(ctx)];
    const n = crypto.randomUUID();
    for (const tenant of tenants)
      for (const variant of ["old", "new"])
        await memoryAt(
          ctx,
          tenant,
          { memoryType: "note", topic: "t", content: text(n, variant) },
          variant === "old" ? 30 : 20,
        );
    const spent = await runPass({ passBudgetMs: 0 });
    // The first tenant's first batch always runs (every pass moves on); no second tenant is started.
    expect(spent.tenants).toBe(1);
    const proposed = await Promise.all(tenants.map(async (t) => (await proposalsOf(t)).length));
    expect(proposed.sort()).toEqual([0, 1]);
    await runPass();
    expect(await Promise.all(tenants.map(async (t) => (await proposalsOf(t)).length))).toEqual([1, 1]);
  });

  it("lets one pass run at a time: a concurrent pass skips", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const holder = ctx.deps.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('amem:consolidate', 0))`);
      await held;
    });
    // The holder must have the lock before the pass starts.
    while (
      (await ctx.deps.sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and granted`)[0]!.n === 0
    )
      await Bun.sleep(5);
    const skipped = await runPass();
    release();
    await holder;
    expect(skipped).toEqual({
      skipped: 1,
      tenants: 0,
      memoriesProbed: 0,
      proposals: 0,
      factsProbed: 0,
      factProposals: 0,
    });
  });
});

describe("consolidate rules (unit)", () => {
  it("supersedes only between the same type among decision, preference, fact and blocker", () => {
    for (const t of ["decision", "preference", "fact", "blocker"]) expect(proposedEdge(t, t)).toBe("supersedes");
    for (const t of ["commitment", "pattern", "note", "event"]) expect(proposedEdge(t, t)).toBe("extends");
    expect(proposedEdge("decision", "preference")).toBe("extends");
    expect(proposalRationale("extends", "note", "event", 0.6049)).toBe("related note and event, 0.60 similar");
  });

  it("takes whole probes within the cap and stops at the first that does not fit, without passing it", () => {
    const at = new Date(0);
    const match = (probeId: string, toId: string | null): ProbeMatch => ({
      probeId,
      probeAt: at,
      probeType: "note",
      toId,
      toType: toId === null ? null : "note",
      similarity: toId === null ? null : 0.7,
    });
    const group = (probeId: string, n: number) => ({
      probeId,
      probeAt: at,
      matches: Array.from({ length: n }, (_, i) => match(probeId, `${probeId}-${i}`)),
    });
    const groups = [group("a", 2), group("b", 0), group("c", 3), group("d", 1)];
    expect(takeWithinCap(groups, 200)).toMatchObject({ probed: 4, full: false, cursor: { id: "d" } });
    const capped = takeWithinCap(groups, 4);
    expect(capped).toMatchObject({ probed: 3, full: true, cursor: { id: "b" } });
    expect(capped.taken.map((m) => m.toId)).toEqual(["a-0", "a-1", "c-0", "c-1"]);
    expect(takeWithinCap([group("x", 250)], 200)).toMatchObject({ probed: 1, full: true, cursor: null });
    expect(takeWithinCap([group("x", 250)], 200).taken.length).toBe(200);
  });
});
