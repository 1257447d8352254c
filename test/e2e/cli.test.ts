import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { MAX_LIVE_API_KEYS } from "@amem/core";
import { createTestContext, foldAllSearchStats, uniquePrefix, UUID_V7 } from "../helpers";
import { TEST_DATABASE_URL, TEST_REDIS_URL } from "../env";
import { runProcess, type ProcessRun } from "../process";

const ROOT = join(import.meta.dir, "..", "..");
const CLI = join(ROOT, "cli", "amem.ts");

/** The CLI and the app share one Redis prefix, as a CLI run against a deployment would. */
const prefix = uniquePrefix();
const ctx = await createTestContext({ REDIS_PREFIX: prefix });

/** Runs `bun cli/amem.ts ...args` as a real process against the test services. */
function amem(...args: string[]): Promise<ProcessRun> {
  return amemWithStdin(undefined, ...args);
}

function amemWithStdin(stdin: string | undefined, ...args: string[]): Promise<ProcessRun> {
  return amemWithEnv({}, stdin, ...args);
}

function amemWithEnv(env: Record<string, string>, stdin: string | undefined, ...args: string[]): Promise<ProcessRun> {
  return runProcess(["bun", CLI, ...args], {
    cwd: ROOT,
    stdin,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      DATABASE_URL: TEST_DATABASE_URL,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      LOG_LEVEL: "silent",
      ...env,
    },
  });
}

/** Exactly one line of output, parsed as JSON. */
function oneJsonLine(stdout: string): Record<string, unknown> {
  const lines = stdout.split("\n").filter((l) => l.length > 0);
  expect(lines.length).toBe(1);
  expect(stdout.endsWith("\n")).toBe(true);
  return JSON.parse(lines[0]!);
}

const uniqueEmail = () => `${crypto.randomUUID()}@example.test`;

async function createUser(email = uniqueEmail(), ...extra: string[]) {
  const run = await amem("user", "create", "--email", email, ...extra);
  expect(run.exitCode).toBe(0);
  const printed = oneJsonLine(run.stdout) as { id: string; email: string; apiKey: string };
  expect(printed.email).toBe(email);
  return printed;
}

describe("amem user create", () => {
  it("prints exactly one JSON line {id, email, apiKey} and exits 0", async () => {
    const email = uniqueEmail();
    const run = await amem("user", "create", "--email", email);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe("");
    const printed = oneJsonLine(run.stdout);
    expect(printed).toEqual({
      id: expect.stringMatching(UUID_V7),
      email,
      apiKey: expect.stringMatching(/^amem_[0-9A-Za-z]{40}$/),
    });
  });

  it("prints a key that works against the app sharing its Redis prefix", async () => {
    const user = await createUser();
    const res = await ctx.request("GET", "/api/v1/me", { apiKey: user.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: user.id, email: user.email });
  });

  it("stores the user, its default scopes and only the hash of its key in Postgres", async () => {
    const user = await createUser();
    const [row] = await ctx.deps.sql`select email, state from users where id = ${user.id}`;
    expect(row).toEqual({ email: user.email, state: "active" });
    const scopes = await ctx.deps.sql`select name from scopes where user_id = ${user.id} order by name`;
    expect(scopes.map((s) => s.name)).toEqual(["personal", "work"]);
    const keys = await ctx.deps.sql`select key_hash from api_keys where user_id = ${user.id}`;
    expect(keys.map((k) => k.key_hash)).toEqual([new Bun.CryptoHasher("sha256").update(user.apiKey).digest("hex")]);
  });

  it("sets the password given with --password so the user can log in", async () => {
    const password = "a long enough password";
    const user = await createUser(uniqueEmail(), "--password", password);
    const res = await ctx.request("POST", "/auth/login", { body: { email: user.email, password } });
    expect(res.status).toBe(200);
  });

  it("reads the password from stdin with --password-stdin, so it is in no command line", async () => {
    const password = "piped in, never an argument";
    const email = uniqueEmail();
    const run = await amemWithStdin(`${password}\n`, "user", "create", "--email", email, "--password-stdin");
    expect(run.exitCode).toBe(0);
    expect(oneJsonLine(run.stdout).email).toBe(email);
    const res = await ctx.request("POST", "/auth/login", { body: { email, password } });
    expect(res.status).toBe(200);
    const short = await amemWithStdin("short\n", "user", "create", "--email", uniqueEmail(), "--password-stdin");
    expect([short.exitCode, short.stderr]).toEqual([
      1,
      "amem: --password-stdin: the first line of stdin must be 8–256 characters\n",
    ]);
  });

  it("creates a user without a password who cannot log in", async () => {
    const user = await createUser();
    const res = await ctx.request("POST", "/auth/login", { body: { email: user.email, password: "anything at all" } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });

  it("exits non-zero with a message on stderr and nothing on stdout for a duplicate email, whatever its case", async () => {
    const user = await createUser();
    for (const email of [user.email, user.email.toUpperCase()]) {
      const run = await amem("user", "create", "--email", email);
      expect(run.exitCode).not.toBe(0);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().length).toBeGreaterThan(0);
    }
    const rows = await ctx.deps.sql`select 1 from users where lower(email) = ${user.email.toLowerCase()}`;
    expect(rows.length).toBe(1);
  });
});

describe("amem key create", () => {
  it("prints exactly one JSON line {id, apiKey}, and the key works", async () => {
    const user = await createUser();
    const run = await amem("key", "create", "--email", user.email, "--name", "deploy bot");
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe("");
    const printed = oneJsonLine(run.stdout) as { id: string; apiKey: string };
    expect(printed).toEqual({
      id: expect.stringMatching(UUID_V7),
      apiKey: expect.stringMatching(/^amem_[0-9A-Za-z]{40}$/),
    });
    const me = await ctx.request("GET", "/api/v1/me", { apiKey: printed.apiKey });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ id: user.id, email: user.email });
    const list = await ctx.request("GET", "/api/v1/api-keys", { apiKey: user.apiKey });
    expect(list.body.keys.find((k: { id: string }) => k.id === printed.id)).toMatchObject({
      id: printed.id,
      name: "deploy bot",
      revokedAt: null,
    });
  });

  it("refuses a name with bidirectional formatting characters, as the api does, and mints nothing", async () => {
    const user = await createUser();
    const run = await amem("key", "create", "--email", user.email, "--name", "Evil\u202eppa");
    expect(run.exitCode).not.toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("--name must be 1–64 characters, visible");
    const [row] = await ctx.deps.sql`select count(*)::int as keys from api_keys where user_id = ${user.id}`;
    expect(row!.keys).toBe(1);
  });

  it("at the account's limit of live keys says so (not that the email is taken) and mints nothing", async () => {
    const user = await createUser();
    // The user's first key plus 99 more: the account is at its limit.
    await ctx.deps.sql`insert into api_keys (id, user_id, name, prefix, key_hash)
      select gen_random_uuid(), ${user.id}, 'filler', 'amem_fill', 'hash-' || ${user.id} || '-' || i
      from generate_series(1, ${MAX_LIVE_API_KEYS - 1}) i`;
    const run = await amem("key", "create", "--email", user.email, "--name", "one too many");
    expect([run.exitCode, run.stdout, run.stderr]).toEqual([
      1,
      "",
      `amem: the account holds ${MAX_LIVE_API_KEYS} live keys, the most it may: revoke one first (amem key revoke --id ID)\n`,
    ]);
    const [row] = await ctx.deps.sql`select count(*)::int as keys from api_keys where user_id = ${user.id}`;
    expect(row!.keys).toBe(MAX_LIVE_API_KEYS);
  });

  it("exits non-zero with a message on stderr and nothing on stdout for an unknown email", async () => {
    const run = await amem("key", "create", "--email", uniqueEmail(), "--name", "n");
    expect(run.exitCode).not.toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim().length).toBeGreaterThan(0);
  });
});

describe("amem key revoke", () => {
  it("revokes the key: the app sharing the prefix answers 401 on the next request, even after caching it", async () => {
    const user = await createUser();
    const created = oneJsonLine((await amem("key", "create", "--email", user.email, "--name", "temp")).stdout) as {
      id: string;
      apiKey: string;
    };
    expect((await ctx.request("GET", "/api/v1/me", { apiKey: created.apiKey })).status).toBe(200);
    const run = await amem("key", "revoke", "--id", created.id);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe("");
    oneJsonLine(run.stdout);
    const res = await ctx.request("GET", "/api/v1/me", { apiKey: created.apiKey });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
    const [row] = await ctx.deps.sql`select revoked_at from api_keys where id = ${created.id}`;
    expect(row!.revoked_at).not.toBeNull();
  });

  it("leaves the user's other keys working", async () => {
    const user = await createUser();
    const created = oneJsonLine((await amem("key", "create", "--email", user.email, "--name", "temp")).stdout) as {
      id: string;
    };
    expect((await amem("key", "revoke", "--id", created.id)).exitCode).toBe(0);
    expect((await ctx.request("GET", "/api/v1/me", { apiKey: user.apiKey })).status).toBe(200);
  });

  it("exits non-zero with nothing on stdout for an unknown or already revoked id", async () => {
    const user = await createUser();
    const created = oneJsonLine((await amem("key", "create", "--email", user.email, "--name", "temp")).stdout) as {
      id: string;
    };
    expect((await amem("key", "revoke", "--id", created.id)).exitCode).toBe(0);
    for (const id of [created.id, Bun.randomUUIDv7()]) {
      const run = await amem("key", "revoke", "--id", id);
      expect(run.exitCode).not.toBe(0);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().length).toBeGreaterThan(0);
    }
  });
});

describe("amem input validation", () => {
  it("rejects what the HTTP API would reject, with a message on stderr and nothing on stdout", async () => {
    const email = uniqueEmail();
    for (const args of [
      ["user", "create", "--email", "not-an-email"],
      ["user", "create", "--email", email, "--password", "short"],
      ["key", "create", "--email", email, "--name", "n".repeat(65)],
      ["key", "revoke", "--id", "not-a-uuid"],
    ]) {
      const result = await amem(...args);
      expect(result.exitCode).not.toBe(0);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^amem: --(email|password|name|id) /);
    }
    const rows = await ctx.deps.sql`select 1 from users where lower(email) = lower(${email})`;
    expect(rows.length).toBe(0);
    // A password given to another command is refused, not silently ignored.
    const stray = await amem("key", "create", "--email", email, "--name", "n", "--password", "a long password");
    expect([stray.exitCode, stray.stdout, stray.stderr]).toEqual([1, "", "amem: a password is only for user create\n"]);
  });
});

describe("amem usage", () => {
  it("prints the usage on stdout and exits 0 for --help, without a database", async () => {
    for (const args of [["--help"], ["user", "create", "--help"], ["key", "-h"]]) {
      const run = await runProcess(["bun", CLI, ...args], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DATABASE_URL: "postgres://127.0.0.1:1/x" },
      });
      expect({ args, exitCode: run.exitCode, usage: run.stdout.startsWith("usage:"), stderr: run.stderr }).toEqual({
        args,
        exitCode: 0,
        usage: true,
        stderr: "",
      });
    }
  });

  it("says which store does not answer and what to set, as bun run start does, not a stack trace", async () => {
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      LOG_LEVEL: "silent",
      DEPENDENCY_TIMEOUT_MS: "500",
    };
    const redisDown = await runProcess(["bun", CLI, "user", "create", "--email", uniqueEmail()], {
      cwd: ROOT,
      env: { ...env, DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: "redis://127.0.0.1:1/0" },
    });
    expect([redisDown.exitCode, redisDown.stdout]).toEqual([1, ""]);
    expect(redisDown.stderr).toStartWith("amem: Redis is unreachable at 127.0.0.1:1");
    const noDatabase = await runProcess(["bun", CLI, "key", "create", "--email", uniqueEmail(), "--name", "k"], {
      cwd: ROOT,
      env: { ...env, DATABASE_URL: `${TEST_DATABASE_URL}_does_not_exist`, REDIS_URL: TEST_REDIS_URL },
    });
    expect([noDatabase.exitCode, noDatabase.stdout]).toEqual([1, ""]);
    expect(noDatabase.stderr).toStartWith("amem: ");
    expect(noDatabase.stderr).toContain("has no database by that name. Run bun run migrate or set DATABASE_URL.");
    expect(noDatabase.stderr).not.toContain("Failed query");
  });

  it("exits non-zero with the usage on stderr for an unknown command", async () => {
    const run = await amem("user", "delete", "--email", uniqueEmail());
    expect(run.exitCode).not.toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("usage");
  });
});

/**
 * A new user with these memories, folded (so the statistics the impacts are computed with hold
 * still), whose stored impacts are then all 0.123: as an upgrade that changed the ranking's
 * constants leaves them. Returns the user, the memories' ids and an id just before them all.
 */
async function userWithStaleImpacts(contents: string[]) {
  // Every memory written from here on has a later id: `--after marker` keeps a run to this test's
  // memories and few others, not the whole test database's (which grows with every run).
  const marker = Bun.randomUUIDv7();
  await Bun.sleep(2);
  const user = await createUser();
  const ids: string[] = [];
  for (const content of contents) {
    const res = await ctx.request("POST", "/api/v1/memories", {
      apiKey: user.apiKey,
      body: { memoryType: "note", topic: "Deploys", content },
    });
    expect(res.status).toBe(201);
    ids.push(res.body.memory.id);
  }
  await foldAllSearchStats(ctx);
  await ctx.deps.db.execute(sql`update memory_terms set impact = 0.123 where user_id = ${user.id}`);
  return { user, ids, marker };
}

/** The ids of the user's memories whose postings still hold the stale impact. */
async function staleMemories(userId: string): Promise<string[]> {
  const rows = await ctx.deps.db.execute<{ memory_id: string }>(
    sql`select distinct memory_id::text from memory_terms where user_id = ${userId} and impact = 0.123::real order by 1`,
  );
  return rows.map((r) => r.memory_id);
}

describe("amem search refresh-impacts", () => {
  it("rewrites every stored impact that differs from what the insert trigger would write now, and only those", async () => {
    const { user, marker } = await userWithStaleImpacts([
      "Deploys go through the canary first.",
      "Canary health checks gate every deploy.",
    ]);
    const postings = await ctx.deps.db.execute<{ n: number }>(
      sql`select count(*)::int as n from memory_terms where user_id = ${user.id}`,
    );
    const run = await amem("search", "refresh-impacts", "--after", marker);
    expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 0, stderr: "" });
    // Other tests' memories may sort after the marker too (some are written with ids of their own).
    const printed = oneJsonLine(run.stdout) as { memories: number; updated: number };
    expect(printed.memories).toBeGreaterThanOrEqual(2);
    expect(printed.updated).toBeGreaterThanOrEqual(postings[0]!.n);
    // Each posting's impact is now the one a memory written now would get (amem_memory_postings).
    const differing = await ctx.deps.db.execute<{ n: number }>(sql`
      select count(*)::int as n
      from memories m
      left join memory_search_stats s on s.user_id = m.user_id
      cross join lateral amem_memory_postings(m.search, s.documents, s.topic_length, s.content_length) p
      join memory_terms t on t.memory_id = m.id and t.term = p.term
      where m.user_id = ${user.id} and t.impact <> p.impact::real`);
    expect(differing[0]!.n).toBe(0);
    // Only those: a second run rewrites no row (each row keeps the version the first one wrote).
    const versions = sql`select string_agg(xmin::text, ',' order by memory_id, term) as v from memory_terms where user_id = ${user.id}`;
    const before = (await ctx.deps.db.execute<{ v: string }>(versions))[0]!.v;
    const again = await amem("search", "refresh-impacts", "--after", marker);
    expect(again.exitCode).toBe(0);
    expect((await ctx.deps.db.execute<{ v: string }>(versions))[0]!.v).toBe(before);
  }, 120_000);

  it("reads a batch the statement timeout cancels again at half the size, until one passes", async () => {
    const { user } = await userWithStaleImpacts(["Canary first, then the fleet."]);
    // Every memory of the test database in one statement, under a statement timeout of 300 ms.
    const run = await amemWithEnv(
      { DEPENDENCY_TIMEOUT_MS: "300" },
      undefined,
      "search",
      "refresh-impacts",
      "--batch",
      "100000",
    );
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain("reading 50000 memories at a time");
    expect(await staleMemories(user.id)).toEqual([]);
  }, 120_000);

  it("resumes after the memory --after names: the ones up to it are left as they are", async () => {
    const { user, ids } = await userWithStaleImpacts(["First deploy note.", "Second deploy note."]);
    const [older] = [...ids].sort();
    const run = await amem("search", "refresh-impacts", "--after", older!.toUpperCase());
    expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 0, stderr: "" });
    expect(await staleMemories(user.id)).toEqual([older!]);
  }, 120_000);

  it("refuses a batch that is not a positive integer, before connecting", async () => {
    for (const batch of ["0", "1.5", "x", "100001", "1e3", "0x10", "-5"]) {
      const run = await amem("search", "refresh-impacts", "--batch", batch);
      expect({ batch, exitCode: run.exitCode, stdout: run.stdout }).toEqual({ batch, exitCode: 1, stdout: "" });
      expect(run.stderr).toContain("--batch");
    }
  });
});
