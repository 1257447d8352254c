import type { Sql } from "postgres";
import { apiClient, expectStatus } from "./http";
import { type Procs, STARTUP_MS } from "./procs";

/** The bench tenant: created through the admin CLI, as an operator would, and its memories counted and deleted by SQL. */

export type BenchUser = { id: string; email: string; apiKey: string };

/**
 * Creates the run's user (`bench-<id>@example.com`) and API key with `amem user create`; with a
 * `password`, the account can also sign in (the OAuth login form of the MCP benchmark).
 */
export async function createBenchUser(
  procs: Procs,
  env: Record<string, string>,
  id: string,
  password?: string,
): Promise<BenchUser> {
  const args = ["user", "create", "--email", `bench-${id}@example.com`];
  if (password !== undefined) args.push("--password", password);
  const created = await procs.run("cli", [process.execPath, "cli/amem.ts", ...args], env, STARTUP_MS);
  if (created.code !== 0) throw new Error(`user create failed: ${created.stderr || created.stdout}`);
  // The CLI prints the user (with the key, shown once) as JSON on its last line.
  return JSON.parse(created.stdout.trim().split("\n").at(-1)!) as BenchUser;
}

/**
 * An existing user (a tenant kept by an earlier run's BENCH_KEEP_DATA=1) with a new API key from
 * `amem key create`, so a later run measures the very same rows (e.g. before and after a change,
 * without seeding 10⁶ memories twice).
 */
export async function reuseBenchUser(
  procs: Procs,
  env: Record<string, string>,
  db: Sql,
  email: string,
  id: string,
): Promise<BenchUser> {
  const [row] = await db`select id from users where email = ${email}`;
  if (!row) throw new Error(`no user ${email} to reuse`);
  const args = ["key", "create", "--email", email, "--name", `bench-${id}`];
  const created = await procs.run("cli", [process.execPath, "cli/amem.ts", ...args], env, STARTUP_MS);
  if (created.code !== 0) throw new Error(`key create failed: ${created.stderr || created.stdout}`);
  const key = JSON.parse(created.stdout.trim().split("\n").at(-1)!) as { apiKey: string };
  return { id: (row as { id: string }).id, email, apiKey: key.apiKey };
}

/**
 * The capture sanity check before a memories load: `body` posted through the api answers 201 (and
 * registers scope "personal"), then the same body again 409 (the duplicate check is live). Answers
 * the actor the api recorded on the memory's event, for the seeded memories' events.
 */
export async function sanityCapture(db: Sql, apiBase: string, apiKey: string, body: string): Promise<string> {
  const api = apiClient(10_000);
  const capture = () => api(apiBase, "/api/v1/memories", { method: "POST", apiKey, body });
  const first = (await expectStatus(await capture(), 201, "capture")) as { memory: { id: string } };
  await expectStatus(await capture(), 409, "duplicate capture");
  const [row] = await db`select actor from memory_events where memory_id = ${first.memory.id}`;
  return (row as { actor: string }).actor;
}

/** How many memories the tenant holds (any status). */
export async function memoryCount(db: Sql, userId: string): Promise<number> {
  const [row] = await db`select count(*)::int as n from memories where user_id = ${userId}`;
  return (row as { n: number }).n;
}

/**
 * Deletes a tenant's memories and their events, 20,000 at a time (a tenant of 100k memories in
 * one statement would hold its locks and its WAL for long); answers how many memories went.
 */
export async function deleteTenantMemories(db: Sql, userId: string): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < 1_000; i++) {
    const ids = (await db`select id from memories where user_id = ${userId} limit 20000`).map((r) => r.id as string);
    if (ids.length === 0) break;
    await db`delete from memory_events where memory_id = any(${ids}::uuid[])`;
    await unindexMemories(db, ids);
    await db`delete from memories where id = any(${ids}::uuid[])`;
    deleted += ids.length;
  }
  return deleted;
}

/**
 * Takes memories out of the search index before a benchmark deletes them (the service never deletes
 * a memory, so it has no such path): everything pending is folded first, then the memories'
 * postings go and their counts come off the statistics — a memory no longer current off the
 * `removed…` figures too (amem_unindex_memory) — which stay exact for what remains.
 */
export async function unindexMemories(db: Sql, ids: string[]): Promise<void> {
  while ((await db`select amem_fold_search_stats(100000) as n`)[0]!.n > 0);
  await db`
    with docs as (
      select distinct on (t.memory_id) t.user_id, t.topic_length, t.content_length,
        (m.valid_to is not null or m.status <> 'active')::int as gone
      from memory_terms t join memories m on m.id = t.memory_id where t.memory_id = any(${ids}::uuid[])
    ), counted as (
      select user_id, count(*) as n, sum(topic_length) as tl, sum(content_length) as cl,
        sum(gone) as rn, sum(gone * topic_length) as rtl, sum(gone * content_length) as rcl
      from docs group by user_id
    )
    update memory_search_stats s
    set documents = s.documents - c.n, topic_length = s.topic_length - c.tl, content_length = s.content_length - c.cl,
      removed_documents = s.removed_documents - c.rn, removed_topic_length = s.removed_topic_length - c.rtl,
      removed_content_length = s.removed_content_length - c.rcl
    from counted c where s.user_id = c.user_id`;
  await db`
    with gone as (
      delete from memory_terms t using memories m
      where m.id = t.memory_id and t.memory_id = any(${ids}::uuid[])
      returning t.user_id, t.term, (m.valid_to is not null or m.status <> 'active')::int as removed
    ),
    counted as (select user_id, term, count(*)::int as n, sum(removed)::int as rn from gone group by user_id, term)
    update memory_term_stats s set df = s.df - c.n, removed_df = s.removed_df - c.rn
    from counted c where s.user_id = c.user_id and s.term = c.term`;
  await db`delete from memory_term_stats where df <= 0`;
}

/**
 * Deletes the tenant's memories tagged `tag` (what a capture load wrote) and their events, 20,000 at
 * a time; answers how many memories went. The figures after it start from the seeded table again.
 */
export async function deleteTaggedMemories(db: Sql, userId: string, tag: string): Promise<number> {
  const ids = (await db`select id from memories where user_id = ${userId} and ${tag} = any(tags)`).map(
    (r) => r.id as string,
  );
  for (let i = 0; i < ids.length; i += 20_000) {
    const batch = ids.slice(i, i + 20_000);
    await db`delete from memory_events where memory_id = any(${batch}::uuid[])`;
    await unindexMemories(db, batch);
    await db`delete from memories where id = any(${batch}::uuid[])`;
  }
  return ids.length;
}

/**
 * Deletes a tenant's session runs and their triage attempts; answers how many runs went. Call it
 * after the tenant's memories and events are gone (they may name a run).
 */
export async function deleteTenantSessions(db: Sql, userId: string): Promise<number> {
  await db`delete from triage_attempts where user_id = ${userId}`;
  const rows = await db`delete from agent_sessions where user_id = ${userId} returning 1`;
  return rows.length;
}
