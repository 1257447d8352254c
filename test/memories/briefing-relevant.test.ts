import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { newSessionId, open } from "../agent-sessions/helpers";
import { LONG_TEXT_MIN_SCORE, RELEVANT_MIN_SCORE, relevantMinScore, wordsRead } from "@amem/core";

const ctx = await createTestContext();
/** A loaded machine (the suite shares two cores) runs these well past bun's 5 s default. */
const TEST_TIMEOUT_MS = 60_000;

async function remember(tenant: Tenant, body: Record<string, unknown>): Promise<string> {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "note", ...body },
  });
  expect(res.status).toBe(201);
  return res.body.memory.id;
}

async function briefing(tenant: Tenant, query: Record<string, string>) {
  const res = await ctx.request("GET", `/api/v1/briefing?${new URLSearchParams(query)}`, { apiKey: tenant.apiKey });
  expect(res.status).toBe(200);
  return res.body;
}

const ids = (section: { items: { id: string }[] }) => section.items.map((i) => i.id);

/** A tenant whose memories are about different things, most of them mentioning the deploy. */
async function project() {
  const tenant = await newTenant(ctx);
  const m = {
    lag: await remember(tenant, {
      topic: "Kafka consumer lag",
      content: "The billing consumer group falls behind when the partition count is below the broker count.",
    }),
    lagBlocker: await remember(tenant, {
      memoryType: "blocker",
      topic: "Kafka consumer lag alarms",
      content: "The consumer lag alarm pages at night; the partition rebalance is pending.",
    }),
    pnpm: await remember(tenant, {
      memoryType: "preference",
      topic: "Package manager",
      content: "Use pnpm for the deploy scripts; the lockfile is pnpm-lock.yaml.",
    }),
  };
  const deploy: string[] = [];
  for (const [i, subject] of ["Fly.io regions", "Health checks", "Rollback", "Secrets"].entries())
    deploy.push(
      await remember(tenant, {
        topic: subject,
        content: `${subject} matter for the deploy: written down after incident ${i}.`,
      }),
    );
  return { tenant, m, deploy };
}

describe("GET /api/v1/briefing?query= (the relevant section)", () => {
  it(
    "lists the memories the search ranks for the query, best first with their scores, without those another section carries",
    async () => {
      const { tenant, m } = await project();
      const body = await briefing(tenant, { query: "why is the kafka consumer lagging behind" });
      // The blocker matches best, but the blockers section already carries it.
      expect(ids(body.sections.blockers)).toEqual([m.lagBlocker]);
      expect(ids(body.sections.relevant)).toEqual([m.lag]);
      expect(body.sections.relevant.hasMore).toBe(false);
      const item = body.sections.relevant.items[0];
      expect(item.score).toBeGreaterThanOrEqual(RELEVANT_MIN_SCORE);
      expect(item.score).toBeLessThanOrEqual(1);
      expect(item).toEqual({
        id: m.lag,
        topic: "Kafka consumer lag",
        status: "active",
        memoryType: "note",
        scope: expect.any(String),
        project: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        dueAt: null,
        score: item.score,
      });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "is empty for a query that shares only a common word with the memories (the score cut)",
    async () => {
      const { tenant } = await project();
      const body = await briefing(tenant, { query: "bake sourdough bread with rye starter before the deploy" });
      expect(body.sections.relevant).toEqual({ items: [], hasMore: false });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "keeps at most sectionLimit items, hasMore saying more passed the cut",
    async () => {
      const { tenant, m, deploy } = await project();
      const body = await briefing(tenant, { query: "the deploy", sectionLimit: "2" });
      expect(body.sections.relevant.items).toHaveLength(2);
      expect(body.sections.relevant.hasMore).toBe(true);
      const all = await briefing(tenant, { query: "the deploy", sectionLimit: "100" });
      // pnpm is a preference: that section carries it, so it is not repeated.
      expect(ids(all.sections.relevant).sort()).toEqual([...deploy].sort());
      expect(all.sections.relevant.hasMore).toBe(false);
      expect(ids(all.sections.preferences)).toEqual([m.pnpm]);
      expect(ids(body.sections.relevant)).toEqual(ids(all.sections.relevant).slice(0, 2));
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "reads the query as plain words: a -word excludes nothing and a quoted phrase is not required",
    async () => {
      const { tenant, m } = await project();
      const body = await briefing(tenant, { query: 'kafka -consumer "lag partition"' });
      expect(ids(body.sections.relevant)).toEqual([m.lag]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "is absent without a query: the sections are exactly the six",
    async () => {
      const { tenant } = await project();
      const body = await briefing(tenant, {});
      expect(Object.keys(body.sections).sort()).toEqual(
        ["blockers", "commitments", "overdue", "preferences", "recentDecisions", "staleCandidates"].sort(),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "briefs a relevant commitment with its own status and due date",
    async () => {
      const tenant = await newTenant(ctx);
      const id = await remember(tenant, {
        memoryType: "commitment",
        topic: "Upgrade the kafka brokers",
        content: "Promised to upgrade the kafka brokers to 3.7.",
        dueAt: "2099-01-01T00:00:00.000Z",
      });
      // Outside the selector, so the commitments section does not carry it.
      const body = await briefing(tenant, { query: "upgrade kafka brokers", kind: "project", project: "elsewhere" });
      expect(ids(body.sections.commitments)).toEqual([]);
      expect(body.sections.relevant.items).toEqual([
        expect.objectContaining({ id, memoryType: "commitment", status: "open", dueAt: "2099-01-01T00:00:00.000Z" }),
      ]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "records the relevant items as the run's briefedMemories when the briefing names a run",
    async () => {
      const { tenant, m } = await project();
      const sessionId = newSessionId();
      expect((await open(ctx, tenant, { sessionId, source: "startup" })).status).toBe(200);
      await briefing(tenant, {
        query: "kafka consumer lag",
        agent: "claude-code",
        sessionId,
        kind: "project",
        project: "none",
      });
      const rows = await ctx.deps.sql`
      select briefed_memories from agent_sessions where user_id = ${tenant.userId} and session_id = ${sessionId}`;
      expect((rows[0]!.briefed_memories as { id: string }[]).map((b) => b.id).sort()).toEqual(
        [m.lag, m.lagBlocker].sort(),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "rejects an empty or over-long query with 400 invalid_input",
    async () => {
      const tenant = await newTenant(ctx);
      for (const query of ["", "x".repeat(1001)]) {
        const res = await ctx.request("GET", `/api/v1/briefing?query=${query}`, { apiKey: tenant.apiKey });
        expect([res.status, res.body]).toEqual([400, { error: "invalid_input" }]);
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe("relevantMinScore", () => {
  it(
    "cuts long free text lower than a question, whose scores divide by fewer words",
    () => {
      expect(relevantMinScore("why is the kafka consumer lagging")).toBe(RELEVANT_MIN_SCORE);
      expect(relevantMinScore(Array.from({ length: 40 }, (_, i) => `word${i}`).join(" "))).toBe(LONG_TEXT_MIN_SCORE);
      expect(LONG_TEXT_MIN_SCORE).toBeLessThan(RELEVANT_MIN_SCORE);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "counts the words the search reads, whatever the spacing: CJK by pairs, punctuation not at all",
    () => {
      // An unspaced excerpt of 40 ideographs is 39 pairs to the search: long text.
      const unspaced = "今天我们检查了数据库连接池的问题然后重新部署了服务并且讨论了缓存策略和监控告警的阈值设置";
      expect(relevantMinScore(unspaced)).toBe(LONG_TEXT_MIN_SCORE);
      // Twenty punctuation marks between spaces are no words.
      expect(relevantMinScore(`kafka lag ${Array(20).fill("—").join(" ")}`)).toBe(RELEVANT_MIN_SCORE);
      // A dotted name is read as its parts.
      expect(wordsRead("config.yaml api/v1")).toBe(4);
      // Vowel signs and viramas are inside a word: six Hindi words are six.
      expect(wordsRead("हिन्दी भाषा में लिखा गया पाठ")).toBe(6);
    },
    TEST_TIMEOUT_MS,
  );
});
