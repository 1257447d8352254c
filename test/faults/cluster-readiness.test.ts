import { afterAll, describe, expect, it } from "bun:test";
import { createTestContext, eventually } from "../helpers";
import { PrivateCluster } from "../private-cluster";

// Its own cluster, without replicas: a killed master leaves its slots unserved, and the cluster
// refuses every command (cluster_state:fail) while its other nodes still answer PING.
const cluster = new PrivateCluster(3, 0);
await cluster.start();
afterAll(() => cluster.stop());
const ctx = await createTestContext({ REDIS_URL: cluster.url, DEPENDENCY_TIMEOUT_MS: "1000" });

describe("readiness on a Redis Cluster", () => {
  it("answers /ready 503 once the cluster cannot serve a slot range, though its other nodes answer PING", async () => {
    expect((await ctx.request("GET", "/ready")).status).toBe(200);
    const master = cluster.masterOf("{probe}");
    await cluster.kill(master);
    const down = await eventually(async () => (await ctx.request("GET", "/ready")).status === 503, 15_000, 200);
    expect(down).toBe(true);
    const ready = await ctx.request("GET", "/ready");
    expect({ status: ready.status, body: ready.body }).toEqual({ status: 503, body: { error: "unavailable" } });
    // Another node still answers PING: what the probe used to ask.
    const live = cluster.nodes.find((n) => n.port !== master)!;
    expect(
      Bun.spawnSync(["redis-cli", "-p", String(live.port), "ping"])
        .stdout.toString()
        .trim(),
    ).toBe("PONG");
  }, 40_000);
});
