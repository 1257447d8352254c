import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { TEST_DATABASE_URL, TEST_REDIS_URL } from "../env";
import { freePort } from "../free-port";
import { uniquePrefix } from "../helpers";

const ROOT = join(import.meta.dir, "..", "..");
const ENTRY_POINTS = [
  ["api", "api/main.ts"],
  ["workers", "workers/main.ts"],
  ["mcp", "mcp/main.ts"],
] as const;

/** Runs an entry point as production does (`bun <file>`) and returns what an operator sees. */
async function run(file: string, overrides: Record<string, string>) {
  const child = Bun.spawn(["bun", file], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      DATABASE_URL: TEST_DATABASE_URL,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: uniquePrefix(),
      PORT: String(freePort()),
      MCP_PORT: String(freePort()),
      SCHEDULERS: "off",
      ...overrides,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  // A process that started instead of failing would never exit by itself.
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  clearTimeout(timer);
  return { code, stdout, lines: stderr.split("\n").filter((l) => l.trim() !== "") };
}

// Issue 19 defect 9: `bun api/main.ts` (and the workers, and mcp) printed a stack for a bad setting
// and only ioredis's "Connection is closed." for a Redis that is not there.
describe("entry points (bun api/main.ts, workers/main.ts, mcp/main.ts) that cannot start", () => {
  for (const [role, file] of ENTRY_POINTS) {
    it(`${role}: a bad setting → exit 1 and one line naming it and what it accepts`, async () => {
      const res = await run(file, { LOG_LEVEL: "loud" });
      expect(res).toEqual({
        code: 1,
        stdout: "",
        lines: [
          `amem ${role}: invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent`,
        ],
      });
    }, 20_000);

    it(`${role}: a cross-setting conflict → exit 1 and one line naming both settings`, async () => {
      const res = await run(file, { PORT: "4100", MCP_PORT: "4100" });
      expect(res).toEqual({
        code: 1,
        stdout: "",
        lines: [
          `amem ${role}: invalid configuration: MCP_PORT: must differ from PORT (both 4100); every listener needs a port of its own`,
        ],
      });
    }, 20_000);

    it(`${role}: Redis not answering → exit 1 and one line naming it and REDIS_URL`, async () => {
      const port = freePort(); // nobody listens on it
      const res = await run(file, { REDIS_URL: `redis://127.0.0.1:${port}/0` });
      expect({ code: res.code, count: res.lines.length }).toEqual({ code: 1, count: 1 });
      expect(res.lines[0]).toBe(
        `amem ${role}: Redis is unreachable at 127.0.0.1:${port} (ECONNREFUSED). Start it or set REDIS_URL.`,
      );
    }, 20_000);

    it(`${role}: Postgres not answering → exit 1 and one line naming it and DATABASE_URL`, async () => {
      const port = freePort();
      const res = await run(file, { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/amem` });
      expect({ code: res.code, count: res.lines.length }).toEqual({ code: 1, count: 1 });
      expect(res.lines[0]).toBe(
        `amem ${role}: Postgres is unreachable at 127.0.0.1:${port} (ECONNREFUSED). Start it or set DATABASE_URL.`,
      );
    }, 20_000);
  }
});

describe("bun run start (cli/start.ts)", () => {
  // Its three children share one environment, so they would all bind METRICS_PORT (issue 19 defect 4).
  it("refuses METRICS_PORT with one line, before starting anything", async () => {
    const res = await run("cli/start.ts", { METRICS_PORT: String(freePort()) });
    expect(res).toEqual({
      code: 1,
      stdout: "",
      lines: [
        "amem: invalid configuration: METRICS_PORT: bun run start runs three processes on one environment; unset it, or run api, workers and mcp each with its own",
      ],
    });
  }, 20_000);
});

describe("bun run test (test/setup.ts)", () => {
  // The tests read TEST_DATABASE_URL / TEST_REDIS_URL; naming REDIS_URL sent a newcomer to the wrong setting.
  it("Redis not answering → exit 2, naming TEST_REDIS_URL", async () => {
    const port = freePort();
    const child = Bun.spawn(["bun", "test", "test/unit/search-query.test.ts"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        TEST_DATABASE_URL,
        TEST_REDIS_URL: `redis://127.0.0.1:${port}/1`,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    clearTimeout(timer);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `Redis is unreachable at 127.0.0.1:${port} (ECONNREFUSED). Start it or set TEST_REDIS_URL.`,
    );
  }, 20_000);
});
