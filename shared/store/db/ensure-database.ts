import postgres from "postgres";

/** Creates the database named in `url` when it does not exist yet (fresh machines, test runs). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[a-zA-Z0-9_]+$/.test(name)) throw new Error("database name must be [a-zA-Z0-9_]+");
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const sql = postgres(admin.toString(), { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    const exists = await sql`select 1 from pg_database where datname = ${name}`;
    if (exists.length === 0) {
      await sql.unsafe(`create database "${name}"`).catch((error: { code?: string }) => {
        if (error.code !== "42P04") throw error; // created concurrently
      });
    }
  } finally {
    await sql.end({ timeout: 1 });
  }
}
