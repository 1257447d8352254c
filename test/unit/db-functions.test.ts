import { afterAll, describe, expect, it } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { TEST_DATABASE_URL } from "../env";

const ROOT = join(import.meta.dir, "..", "..");
const FUNCTIONS = join(ROOT, "shared", "store", "db", "functions");
const MIGRATIONS = join(ROOT, "migrations");

/** From `CREATE OR REPLACE FUNCTION <name>(` to the end of its `$$` body: the definition, comments left out. */
function definitionOf(name: string, text: string): string | null {
  const start = text.lastIndexOf(`CREATE OR REPLACE FUNCTION ${name}(`);
  if (start < 0) return null;
  const open = text.indexOf("$$", start);
  const close = text.indexOf("$$", open + 2);
  return text.slice(start, close + 2);
}

const bodyOf = (definition: string) => definition.slice(definition.indexOf("$$") + 2, definition.lastIndexOf("$$"));

const journal = (await Bun.file(join(MIGRATIONS, "meta", "_journal.json")).json()) as { entries: { tag: string }[] };
const sql = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
afterAll(() => sql.end());

describe("Postgres functions (shared/store/db/functions)", () => {
  const names = readdirSync(FUNCTIONS)
    .filter((file) => file.endsWith(".sql"))
    .map((file) => file.slice(0, -4));

  it("has a source file for every function", () => {
    expect(names).toContain("amem_complete_triage");
  });

  for (const name of names) {
    it(`${name}: the latest migration that installs it holds exactly its source`, async () => {
      const source = definitionOf(name, await Bun.file(join(FUNCTIONS, `${name}.sql`)).text());
      expect(source).not.toBeNull();
      let installed: string | null = null;
      for (const { tag } of journal.entries) {
        installed = definitionOf(name, await Bun.file(join(MIGRATIONS, `${tag}.sql`)).text()) ?? installed;
      }
      expect(installed).toBe(source);
    });

    it(`${name}: the migrated database runs exactly its source`, async () => {
      const source = definitionOf(name, await Bun.file(join(FUNCTIONS, `${name}.sql`)).text())!;
      const [row] = await sql`select prosrc from pg_proc where proname = ${name}`;
      expect(row?.prosrc).toBe(bodyOf(source));
    });
  }
});
