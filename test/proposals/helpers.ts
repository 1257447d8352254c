import { expect } from "bun:test";
import { createMemory, type NewMemory } from "@amem/core";
import { insertFactProposals, insertProposals } from "@amem/store";
import { newId } from "@amem/platform";
import { principalOf, type TestContext, type Tenant } from "../helpers";

export const unique = (text: string) => `${text} ${crypto.randomUUID()}`;

/** A memory written `minutesAgo` minutes ago (the consolidate job only probes settled writes). */
export async function memoryAt(ctx: TestContext, tenant: Tenant, input: NewMemory, minutesAgo: number) {
  const { memory, factIds } = await createMemory(
    ctx.deps,
    principalOf(tenant),
    input,
    "remember",
    new Date(Date.now() - minutesAgo * 60_000),
  );
  return { ...memory, factIds };
}

export async function remember(ctx: TestContext, tenant: Tenant, body: Record<string, unknown>) {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "decision", topic: "t", ...body },
  });
  expect(res.status).toBe(201);
  return res.body;
}

/** A proposal as the consolidate job would store it. */
export async function propose(
  ctx: TestContext,
  tenant: Tenant,
  p: {
    fromId: string;
    toId: string;
    edgeType?: "supersedes" | "updates" | "extends";
    memoryType?: string;
    similarity?: number;
    createdAt?: Date;
  },
) {
  const row = {
    id: newId(),
    userId: tenant.userId,
    fromId: p.fromId,
    toId: p.toId,
    edgeType: p.edgeType ?? "supersedes",
    memoryType: p.memoryType ?? "decision",
    rationale: "newer decision on the same topic, 0.80 similar",
    similarity: p.similarity ?? 0.8,
    createdAt: p.createdAt ?? new Date(),
  };
  await insertProposals(ctx.deps.db, [row]);
  return row;
}

export async function proposeFact(
  ctx: TestContext,
  tenant: Tenant,
  p: { fromId: string; toId: string; createdAt?: Date },
) {
  const row = {
    id: newId(),
    userId: tenant.userId,
    fromId: p.fromId,
    toId: p.toId,
    rationale: "same subject, similar predicate and value, 0.75 similar",
    similarity: 0.75,
    createdAt: p.createdAt ?? new Date(),
  };
  await insertFactProposals(ctx.deps.db, [row]);
  return row;
}
