import { describe, expect, it } from "bun:test";
import { dashboard } from "../../ops/grafana/dashboard";

describe("ops/grafana/amem.json", () => {
  it("is exactly the dashboard tsc checked against Grafana's schema types (bun run ops:dashboard rewrites it)", async () => {
    const committed = await Bun.file(new URL("../../ops/grafana/amem.json", import.meta.url)).text();
    expect(committed).toBe(`${JSON.stringify(dashboard, null, 2)}\n`);
  });
});
