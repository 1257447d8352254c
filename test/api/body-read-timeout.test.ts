import { describe, expect, it } from "bun:test";
import { createTestContext } from "../helpers";
import { head, rawRequest, serveOnLoopback, type RawResponse } from "../raw-http";
import { earliestIdleCloseMs, idleTimeoutFor } from "@amem/http";
import { ConfigSchema } from "@amem/platform";
import { MCP_IDLE_TIMEOUT_SECONDS } from "../../mcp/serve";

const json = { "content-type": "application/json" };
const defaults = await createTestContext();
const defaultPort = serveOnLoopback(defaults);
const short = await createTestContext({ BODY_READ_TIMEOUT_MS: "2900" });
const shortPort = serveOnLoopback(short);
const truncated = head("POST", "/api/v1/api-keys", { ...json, "content-length": "100" }) + '{"na';

/** What a client sending a body shorter than its Content-Length receives: the 400, then the close. */
function expectRefusal(res: Awaited<ReturnType<typeof rawRequest>>) {
  const answer = res as RawResponse;
  expect({ status: res.status, body: answer.body, closed: answer.closed }).toEqual({
    status: 400,
    body: '{"error":"invalid_json"}',
    closed: true,
  });
}

// Issue 19 defect 7: with BODY_READ_TIMEOUT_MS and Bun's idle timeout both 10 s, Bun closed the
// silent connection (after 9.3 s) before the app's 400 went out.
describe("a body shorter than its Content-Length", () => {
  it("gets 400 invalid_json, not a closed connection, under the default configuration", async () => {
    // Bun's idle close lands anywhere in a 4 s window depending on where its tick falls, so four
    // connections staggered 1 s apart cover every phase: with the old 10 s idle timeout at least
    // one of them was closed before the 10 s refusal.
    const answers = await Promise.all(
      [0, 1, 2, 3].map(async (i) => {
        await Bun.sleep(i * 1_000);
        return rawRequest(defaultPort, truncated, { waitMs: 20_000 });
      }),
    );
    for (const res of answers) {
      expectRefusal(res);
      expect((res as RawResponse).elapsedMs).toBeGreaterThanOrEqual(defaults.config.BODY_READ_TIMEOUT_MS - 50);
    }
  }, 30_000);

  it("gets its 400 when BODY_READ_TIMEOUT_MS is just under a 4-second idle tick", async () => {
    const res = await rawRequest(shortPort, truncated, { waitMs: 10_000 });
    expectRefusal(res);
    expect((res as RawResponse).elapsedMs).toBeGreaterThanOrEqual(2_850);
  }, 15_000);

  it("can always be answered: for every allowed BODY_READ_TIMEOUT_MS, Bun closes an idle connection at least 1 s after the refusal", () => {
    const { minimum, maximum } = ConfigSchema.properties.BODY_READ_TIMEOUT_MS;
    for (const atLeast of [10, MCP_IDLE_TIMEOUT_SECONDS])
      for (let ms = minimum!; ms <= maximum!; ms += 50) {
        const idle = idleTimeoutFor(ms, atLeast);
        expect({ ms, atLeast, ok: earliestIdleCloseMs(idle) >= ms + 1_000 && idle <= 255 }).toEqual({
          ms,
          atLeast,
          ok: true,
        });
      }
  });
});
