/**
 * B-pg (shared/BENCH.md): a minimal Elysia app with the memory-create body schema doing one
 * Postgres `UPDATE … RETURNING` per request through postgres.js (pool 10) — the ceiling for a
 * request that needs one Postgres round trip. Started by bench/memories.ts as its own process.
 *
 * env: PORT, DATABASE_URL. On start it creates (if missing) the table `bench_pg_baseline` with
 * 1,024 rows in that database; each request updates one row chosen at random, so 64 concurrent
 * requests rarely wait on the same row lock.
 *
 * The schema is copied from shared/core/contract/memories.ts on purpose (not imported): a baseline that moved
 * with the service would stop being a fixed yardstick.
 */
import { Elysia, t } from "elysia";
import postgres from "postgres";

const port = Number(process.env.PORT);
const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/amem_bench";
if (!Number.isInteger(port) || port <= 0) throw new Error("PORT must be set");
const ROWS = 1024;

const sql = postgres(url, {
  max: 10,
  onnotice: () => {},
  connection: { statement_timeout: 2_000, application_name: "bench-baseline-pg" },
});
await sql`create table if not exists bench_pg_baseline (id int primary key, n bigint not null default 0, touched_at timestamptz)`;
await sql`insert into bench_pg_baseline (id) select g from generate_series(1, ${ROWS}::int) g on conflict do nothing`;

const oneOf = <T extends string>(values: readonly T[]) => t.Union(values.map((v) => t.Literal(v)));
const CreateMemoryBody = t.Object(
  {
    memoryType: oneOf(["decision", "commitment", "blocker", "fact", "preference", "pattern", "note", "event"]),
    topic: t.String({ minLength: 1, maxLength: 256 }),
    content: t.String({ minLength: 1, maxLength: 8000 }),
    scope: t.Optional(t.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9-]*$" })),
    project: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
    tags: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 32 })),
  },
  { additionalProperties: false },
);

const app = new Elysia({ normalize: false })
  .get("/health", () => "ok")
  .post(
    "/memories",
    async ({ body, status }) => {
      const id = 1 + Math.floor(Math.random() * ROWS);
      const rows = await sql`update bench_pg_baseline set n = n + 1, touched_at = now() where id = ${id} returning n`;
      return status(201, { id, n: Number(rows[0]!.n), topic: body.topic });
    },
    { body: CreateMemoryBody },
  )
  .listen({ hostname: "127.0.0.1", port, reusePort: false });

const stop = () => {
  void app.stop().finally(() => {
    void sql.end({ timeout: 2 }).finally(() => process.exit(0));
  });
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
