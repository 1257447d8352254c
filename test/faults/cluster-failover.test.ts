import { afterAll, describe, expect, it } from "bun:test";
import { createTestContext, eventually, newTenant } from "../helpers";
import { dbRow, heartbeat, newSessionId, open } from "../agent-sessions/helpers";
import { PrivateCluster } from "../private-cluster";
import { startFlusher } from "../../workers/flusher/flusher";

// Its own cluster with a replica per master (the suite's cluster pass has none), whatever Redis the
// rest of the run uses: this file is the cluster failover test in both passes.
const cluster = new PrivateCluster(3, 1);
await cluster.start();
afterAll(() => cluster.stop());
const TIMEOUT_MS = 1_000;
const ctx = await createTestContext({ REDIS_URL: cluster.url, DEPENDENCY_TIMEOUT_MS: String(TIMEOUT_MS) });
const flusher = startFlusher(ctx.deps);
ctx.onClose(flusher.stop);

/**
 * A request during the failover answers within this: a command to the dead master waits out its
 * timeout, the cluster client refreshes the slot map and retries once (measured: at most 2.7 s with
 * a 1 s timeout while the election takes 2–3 s).
 */
const BOUND_MS = 4 * TIMEOUT_MS;

type Outcome = { what: string; status: number; body: unknown; ms: number };

describe("Redis Cluster failover", () => {
  it("kills the master holding a tenant's leases mid-traffic: requests answer 2xx or 503 within the bound, every acknowledged memory is in Postgres, and the leases go on under the promoted replica", async () => {
    const tenant = await newTenant(ctx);
    const sessions = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const sessionId = newSessionId();
        const opened = await open(ctx, tenant, { sessionId, source: "startup" });
        expect(opened.status).toBe(200);
        return { sessionId, runId: opened.body.sessionRunId as string };
      }),
    );
    const master = cluster.masterOf(ctx.deps.keys.leaseDirtyOf(tenant.userId));
    expect(cluster.replicasOf(master)).toHaveLength(1);

    const outcomes: Outcome[] = [];
    const acknowledged: string[] = [];
    let stopped = false;
    const timed = async (what: string, send: () => Promise<{ status: number; body: any }>) => {
      const started = performance.now();
      const res = await send();
      outcomes.push({ what, status: res.status, body: res.body, ms: performance.now() - started });
      return res;
    };
    const traffic = sessions.map(async ({ sessionId }, i) => {
      for (let n = 0; !stopped; n++) {
        await timed("heartbeat", () => heartbeat(ctx, tenant, { sessionId }));
        const res = await timed("memory", () =>
          ctx.request("POST", "/api/v1/memories", {
            apiKey: tenant.apiKey,
            body: { memoryType: "note", topic: `failover ${i}`, content: `write ${i}.${n} ${crypto.randomUUID()}` },
          }),
        );
        if (res.status === 201) acknowledged.push(res.body.memory.id);
      }
    });

    await Bun.sleep(300);
    const before = outcomes.length;
    await cluster.kill(master);
    const killedAt = performance.now();
    await cluster.waitHealthy(20_000); // the replica is promoted: three masters serve every slot again
    const failoverMs = performance.now() - killedAt;
    await Bun.sleep(500); // traffic under the promoted replica
    stopped = true;
    await Promise.all(traffic);

    expect(before).toBeGreaterThan(0);
    expect(failoverMs).toBeLessThan(20_000);
    const unexpected = outcomes.filter(
      (o) =>
        !(o.what === "heartbeat" && o.status === 200) &&
        !(o.what === "memory" && o.status === 201) &&
        !(o.status === 503 && JSON.stringify(o.body) === JSON.stringify({ error: "unavailable" })),
    );
    expect(unexpected).toEqual([]);
    expect(outcomes.filter((o) => o.ms >= BOUND_MS)).toEqual([]);

    // Every acknowledged write is in Postgres.
    const stored = await ctx.deps.sql`select id from memories where id = any(${acknowledged}::uuid[])`;
    expect(stored.map((r) => r.id).sort()).toEqual([...acknowledged].sort());
    expect(acknowledged.length).toBeGreaterThan(0);

    // The leases go on: the same run, never a resurrection, and the write-behind reaches Postgres again.
    for (const { sessionId, runId } of sessions) {
      const beat = await heartbeat(ctx, tenant, { sessionId });
      expect(beat.status).toBe(200);
      expect(beat.body).toMatchObject({ sessionRunId: runId, activationEpoch: 1, resurrected: false });
      const seenMs = Date.parse(beat.body.lastSeenAt);
      expect(await eventually(async () => (await dbRow(ctx, runId))!.last_seen_ms >= seenMs, 15_000)).toBe(true);
    }
  }, 60_000);
});
