import { describe, expect, it } from "bun:test";
import { Glob } from "bun";

const root = new URL("../..", import.meta.url).pathname;

/** Every test source (test files and their helpers, test/ and the packages' own test/), with its text. */
async function testSources(): Promise<{ path: string; text: string }[]> {
  const sources: { path: string; text: string }[] = [];
  for (const pattern of ["test/**/*.ts", "shared/*/test/**/*.ts"])
    for await (const path of new Glob(pattern).scan({ cwd: root }))
      sources.push({ path, text: await Bun.file(`${root}${path}`).text() });
  expect(sources.some(({ path }) => path.startsWith("shared/"))).toBe(true);
  return sources;
}

describe("the test suite's use of stores", () => {
  // Issue 19 defect 5: a test ran FLUSHDB on db 13 of the local Redis whatever TEST_REDIS_URL said.
  // A test may wipe only a redis-server it started itself (PrivateRedis, PrivateCluster).
  it("flushes only a Redis the same file started", async () => {
    const offenders = (await testSources())
      .filter(({ path }) => path !== "test/unit/test-stores.test.ts")
      .filter(({ text }) => /\.(flushdb|flushall)\s*\(|["'`](FLUSHDB|FLUSHALL)\b/i.test(text))
      .filter(({ text }) => !/new (PrivateRedis|PrivateCluster)\s*\(/.test(text))
      .map(({ path }) => path);
    expect(offenders).toEqual([]);
  });

  it("connects to the shared Redis only through TEST_REDIS_URL, never by a database number of its own", async () => {
    const offenders = (await testSources())
      .filter(({ text }) => /REDIS_URL:\s*["'`]redis:\/\/(127\.0\.0\.1|localhost):6379\/(?!0["'`])/.test(text))
      .map(({ path }) => path);
    expect(offenders).toEqual([]);
  });
});
