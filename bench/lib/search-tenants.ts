import type postgres from "postgres";
import type { Bench } from "./define-bench";
import { MemoryTextGenerator } from "./memory-text";
import { STARTUP_MS } from "./procs";
import { seedPersonalMemories, seedUpTo } from "./seed";
import { createBenchUser, memoryCount } from "./tenant";

/**
 * The tenants of the search benchmark's database (amem_bench_search), shared by every benchmark that
 * measures at 10⁴–10⁶ memories in one tenant (bench:search, bench:console), so the slow seeding of
 * 10⁶ is done once and kept between runs. A tenant is found by email (`bench-search-<name>`) and
 * topped up by COPY (bench/lib/seed.ts; the memories insert trigger indexes them as any write).
 */

/**
 * The bench tenant `name` of a database, created the first time (admin CLI) and found by email
 * afterwards, with a fresh API key for this run; topped up to `count` memories from `seed`.
 * `found` hears of the user before the top-up (a cleanup that deletes it also covers a failed one).
 */
export async function searchTenant(
  bench: Pick<Bench, "procs" | "id">,
  sql: postgres.Sql,
  env: Record<string, string>,
  name: string,
  count: number,
  seed: number,
  found?: (userId: string) => void,
): Promise<{ userId: string; apiKey: string }> {
  const email = `bench-search-${name}@example.com`;
  const existing = await sql`select id from users where email = ${email}`;
  let userId: string;
  let apiKey: string;
  if (existing.length === 0) {
    const user = await createBenchUser(bench.procs, env, `search-${name}`);
    [userId, apiKey] = [user.id, user.apiKey];
  } else {
    userId = existing[0]!.id as string;
    const key = await bench.procs.run(
      "cli",
      [process.execPath, "cli/amem.ts", "key", "create", "--email", email, "--name", `bench ${bench.id}`],
      env,
      STARTUP_MS,
    );
    if (key.code !== 0) throw new Error(`key create failed: ${key.stderr || key.stdout}`);
    apiKey = (JSON.parse(key.stdout.trim().split("\n").at(-1)!) as { apiKey: string }).apiKey;
  }
  found?.(userId);
  const gen = new MemoryTextGenerator(seed);
  const { seeded, seedSeconds } = await seedUpTo(sql, userId, count, (n) => {
    // Skip what earlier runs generated, so top-ups stay unique and identical across databases.
    return skipThenSeed(sql, gen, userId, n);
  });
  if (seeded > 0) console.log(`${name}: seeded ${seeded.toLocaleString("en-US")} in ${seedSeconds.toFixed(0)} s`);
  return { userId, apiKey };
}

/** Seeds in chunks of 20,000 (one COPY transaction each), so a long top-up shows its progress. */
async function skipThenSeed(sql: postgres.Sql, gen: MemoryTextGenerator, userId: string, n: number): Promise<void> {
  const have = await memoryCount(sql, userId);
  for (let i = 0; i < have; i++) gen.next();
  for (let done = 0; done < n; ) {
    const chunk = Math.min(20_000, n - done);
    await seedPersonalMemories(sql, gen, userId, chunk, "bench");
    done += chunk;
    if (n > 20_000) process.stdout.write(`  ${(have + done).toLocaleString("en-US")}\r`);
  }
}

/**
 * Folds every pending memory into the search statistics and the console's daily counts, and every
 * pending delta into the dashboard summary's counts (as the workers' flusher does), then refreshes
 * the planner's figures.
 */
export async function settleSearchTenants(sql: postgres.Sql): Promise<void> {
  while (Number((await sql`select amem_fold_search_stats(200000) as n`)[0]!.n) > 0);
  while (Number((await sql`select amem_fold_summary_counts(200000) as n`)[0]!.n) > 0);
  await sql.unsafe(
    "vacuum analyze memories, memory_terms, memory_term_stats, memory_search_pending, memory_activity, summary_counts, summary_count_deltas",
  );
}
