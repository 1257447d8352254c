import { expect } from "bun:test";
import { sql } from "drizzle-orm";
import type { TestContext } from "../helpers";

/**
 * Asserts that a tenant's folded search statistics equal a recount over its memories: of every
 * memory ever indexed and, minus the `removed…` figures, of its current ones — counts, summed field
 * lengths as the index read them (each memory's postings carry its lengths), and every term's
 * document frequency. Call once nothing of the tenant is pending.
 */
export async function expectStatsEqualRecount(ctx: TestContext, userId: string) {
  const [stats] = await ctx.deps.db.execute<{
    documents: number;
    removed_documents: number;
    topic_length: number;
    removed_topic_length: number;
    content_length: number;
    removed_content_length: number;
  }>(sql`select documents::int, removed_documents::int, topic_length::int, removed_topic_length::int,
           content_length::int, removed_content_length::int
         from memory_search_stats where user_id = ${userId}`);
  const recount = async (currentOnly: boolean) =>
    (
      await ctx.deps.db.execute<{ documents: number; topic: number; content: number }>(sql`
        select count(*)::int as documents,
          coalesce(sum(l.topic_length), 0)::int as topic, coalesce(sum(l.content_length), 0)::int as content
        from memories m
        cross join lateral (select t.topic_length, t.content_length from memory_terms t where t.memory_id = m.id limit 1) l
        where m.user_id = ${userId} and (not ${currentOnly} or (m.valid_to is null and m.status = 'active'))`)
    )[0]!;
  const all = await recount(false);
  const current = await recount(true);
  expect([stats!.documents, stats!.topic_length, stats!.content_length]).toEqual([
    all.documents,
    all.topic,
    all.content,
  ]);
  expect([
    stats!.documents - stats!.removed_documents,
    stats!.topic_length - stats!.removed_topic_length,
    stats!.content_length - stats!.removed_content_length,
  ]).toEqual([current.documents, current.topic, current.content]);
  const wrongTerms = await ctx.deps.db.execute<{ term: string }>(sql`
    select s.term from memory_term_stats s
    left join lateral (
      select count(*)::int as all_df,
        count(*) filter (where m.valid_to is null and m.status = 'active')::int as current_df
      from memory_terms t join memories m on m.id = t.memory_id
      where t.user_id = s.user_id and t.term = s.term
    ) r on true
    where s.user_id = ${userId} and (s.df <> r.all_df or s.df - s.removed_df <> r.current_df)`);
  expect(wrongTerms.map((r) => r.term)).toEqual([]);
  const missing = await ctx.deps.db.execute<{ term: string }>(sql`
    select distinct t.term from memory_terms t
    where t.user_id = ${userId}
      and not exists (select 1 from memory_term_stats s where s.user_id = t.user_id and s.term = t.term)`);
  expect(missing.map((r) => r.term)).toEqual([]);
  return { all, current };
}
