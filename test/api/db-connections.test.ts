import { describe, expect, it } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestContext } from "../helpers";

const ctx = await createTestContext();

describe("the service's Postgres connections", () => {
  it("run with jit off (the server's default is on)", async () => {
    // JIT compiled the briefing for 62–104 ms at 10⁶ memories on top of 42 ms of work (issue 18);
    // the service's statements read pages and capped counts, never enough rows to repay it.
    // Several at once, so more than one pooled connection answers.
    const answers = await Promise.all(Array.from({ length: 4 }, () => ctx.deps.db.execute(sql`show jit`)));
    expect(answers.map((rows) => [...rows])).toEqual(Array.from({ length: 4 }, () => [{ jit: "off" }]));
  });
});
