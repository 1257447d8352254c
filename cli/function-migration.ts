import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * `bun run db:function <name>`: a new custom migration (drizzle-kit) that installs the Postgres
 * function whose source is shared/store/db/functions/<name>.sql. Functions are edited in their source
 * file, never in a migration (a merged migration is never edited); this copies the source into the
 * next migration, and test/unit/db-functions.test.ts checks the two never drift.
 */
const root = new URL("..", import.meta.url).pathname;
const name = process.argv[2];
const source = name ? Bun.file(join(root, "shared", "store", "db", "functions", `${name}.sql`)) : null;
if (!name || !source || !(await source.exists())) {
  console.error("usage: bun run db:function <name>   (shared/store/db/functions/<name>.sql must exist)");
  process.exit(1);
}
const migrations = join(root, "migrations");
const before = new Set(readdirSync(migrations));
const generated = Bun.spawnSync(["bunx", "drizzle-kit", "generate", "--custom", "--name", `${name}_function`], {
  cwd: root,
  stdout: "inherit",
  stderr: "inherit",
});
const created = readdirSync(migrations).filter((file) => file.endsWith(".sql") && !before.has(file));
if (generated.exitCode !== 0 || created.length !== 1) {
  console.error("amem: drizzle-kit did not create one custom migration");
  process.exit(1);
}
await Bun.write(join(migrations, created[0]!), await source.text());
console.log(`migrations/${created[0]} installs shared/store/db/functions/${name}.sql`);
