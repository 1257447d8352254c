import { it } from "bun:test";
import { createTestContext, newTenant } from "../helpers";
const ctx = await createTestContext({ BODY_LIMIT_BYTES: "2048" });
it("probe", async () => {
  const t = await newTenant(ctx);
  const big = JSON.stringify({ name: "x".repeat(5000) });
  const r1 = new Request("http://x/api/v1/api-keys", { method: "POST", body: big, headers: { "content-length": String(big.length), "content-type": "application/json", "x-api-key": t.apiKey } });
  console.log("cl header kept:", r1.headers.get("content-length"));
  const res1 = await ctx.app.handle(r1); console.log("413 w/ cl", res1.status, await res1.text());
  const server = ctx.app.listen({ port: 0, hostname: "127.0.0.1" });
  const base = `http://127.0.0.1:${ctx.app.server!.port}`;
  const stream = (s: string) => new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(s)); c.close(); } });
  for (const [label, body, ct] of [["413 str", big, "application/json"], ["415 str", '{"name":"a"}', "text/plain"]] as const) {
    const r = await fetch(base + "/api/v1/api-keys", { method: "POST", body, headers: { "content-type": ct, "x-api-key": t.apiKey } });
    console.log(label, r.status, await r.text());
  }
  for (const [label, body, ct] of [["413 chunked", big, "application/json"], ["415 chunked", '{"name":"a"}', "text/plain"]] as const) {
    const r = await fetch(base + "/api/v1/api-keys", { method: "POST", body: stream(body), headers: { "content-type": ct, "x-api-key": t.apiKey } , duplex: "half" } as any);
    console.log(label, r.status, await r.text());
  }
  const rr = await fetch(base + "/api/v1/api-keys", { method: "POST", body: '{"name":"a"}', headers: { "x-api-key": t.apiKey } });
  console.log("no ct", rr.status, await rr.text());
  ctx.app.stop();
});
