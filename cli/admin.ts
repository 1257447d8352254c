import { parseArgs } from "node:util";
import { loadConfig, AppError, createLogger, grownBatch, halvedBatch, isContention, isUuid } from "@amem/platform";
import {
  createDeps,
  type Deps,
  createUser,
  createApiKey,
  revokeApiKeyById,
  isEmail,
  isKeyName,
  isPassword,
  MAX_LIVE_API_KEYS,
} from "@amem/core";
import { findUserByEmail, preflight, refreshSearchImpacts } from "@amem/store";

const USAGE = `usage:
  bun run amem user create --email E [--password-stdin | --password P]   → {"id","email","apiKey"}
                       (--password-stdin reads it from the first line of stdin: an argument shows
                       in bun run's echo of the command, the shell's history and ps)
  bun run amem key create --email E --name N           → {"id","apiKey"}
  bun run amem key revoke --id ID                      → {"id","revoked":true}
  bun run amem search refresh-impacts [--batch N] [--after ID]   → {"memories","updated"}   after an
                       upgrade that changed the ranking's constants (README, "Upgrading"): the
                       stored impacts recomputed, N memories (default 1000) per statement, from the
                       memory after ID (where a stopped run said it stopped)
  bun run amem hook <claude-code|codex>                 hook JSON on stdin → the harness's hook output
  bun run amem connect <claude-code|codex> [--project-settings] [--write] [--url U] [--mcp-url U]
                       [--hook-command CMD] [--command-hooks]   the settings block (connect --help)`;

/** The options each command takes. */
const OPTIONS_OF: Record<string, string[]> = {
  "user create": ["email", "password", "password-stdin"],
  "key create": ["email", "name"],
  "key revoke": ["id"],
  "search refresh-impacts": ["batch", "after"],
};

type AdminArgs = {
  command: string;
  values: {
    email?: string;
    password?: string;
    passwordStdin?: boolean;
    name?: string;
    id?: string;
    batch?: number;
    after?: string;
  };
};

/**
 * The command and its options, checked before anything is connected to: a usage or input error is
 * said without Postgres or Redis. Null asks for the usage (`--help`).
 */
function readArgs(argv: string[]): AdminArgs | null {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: "string" },
      password: { type: "string" },
      "password-stdin": { type: "boolean" },
      name: { type: "string" },
      id: { type: "string" },
      batch: { type: "string" },
      after: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return null;
  const command = positionals.join(" ");
  if (values.password !== undefined && values["password-stdin"])
    throw new Error("--password and --password-stdin: give one");
  if ((values.password !== undefined || values["password-stdin"]) && command !== "user create")
    throw new Error("a password is only for user create");
  if (values.email !== undefined && !isEmail(values.email)) throw new Error("--email is not an email address");
  if (values.password !== undefined && !isPassword(values.password))
    throw new Error("--password must be 8–256 characters");
  if (values.name !== undefined && !isKeyName(values.name))
    throw new Error("--name must be 1–64 characters, visible, without control or bidirectional formatting characters");
  if (values.id !== undefined && !isUuid(values.id)) throw new Error("--id is not a uuid");
  const batch = values.batch === undefined ? undefined : Number(values.batch);
  if (values.batch !== undefined && !(/^[1-9][0-9]{0,5}$/.test(values.batch) && batch! <= 100_000))
    throw new Error("--batch must be an integer from 1 to 100000");
  if (values.after !== undefined && !isUuid(values.after)) throw new Error("--after is not a uuid");
  // An option another command takes is refused, not ignored: `search refresh-impacts --id X`, meant
  // as "resume", ran from the first memory (a review).
  const allowed = OPTIONS_OF[command];
  const foreign = allowed ? Object.keys(values).filter((o) => o !== "help" && !allowed.includes(o)) : [];
  if (foreign.length > 0) throw new Error(`--${foreign[0]} is not an option of ${command}\n${USAGE}`);
  const known =
    (command === "user create" && values.email) ||
    (command === "key create" && values.email && values.name) ||
    (command === "key revoke" && values.id) ||
    command === "search refresh-impacts";
  if (!known) throw new Error(USAGE);
  return {
    command,
    values: { ...values, passwordStdin: values["password-stdin"], batch, after: values.after?.toLowerCase() },
  };
}

/** The first line of stdin, without its line ending: a password piped in (`--password-stdin`). */
async function passwordFromStdin(): Promise<string> {
  const line = (await Bun.stdin.text()).split(/\r?\n/, 1)[0] ?? "";
  if (!isPassword(line)) throw new Error("--password-stdin: the first line of stdin must be 8–256 characters");
  return line;
}

/**
 * The admin CLI: creates users and keys without mail (SPEC §2.3), and refreshes the search index's
 * stored impacts after an upgrade. Prints one JSON line.
 */
async function run(deps: Deps, { command, values }: AdminArgs): Promise<unknown> {
  if (command === "user create" && values.email) {
    const user = await createUser(deps, { email: values.email, password: values.password, withApiKey: true });
    return { id: user.id, email: user.email, apiKey: user.apiKey };
  }
  if (command === "key create" && values.email && values.name) {
    const user = await findUserByEmail(deps.db, values.email);
    if (!user || user.state !== "active") throw new Error("no active user with that email");
    const key = await createApiKey(deps, { userId: user.id, email: user.email }, values.name);
    return { id: key.id, apiKey: key.key };
  }
  if (command === "key revoke" && values.id) {
    await revokeApiKeyById(deps, null, values.id.toLowerCase());
    return { id: values.id.toLowerCase(), revoked: true };
  }
  if (command === "search refresh-impacts") return refreshImpacts(deps, values.batch ?? 1000, values.after ?? null);
  throw new Error(USAGE);
}

/**
 * Every memory's stored impacts recomputed, batch by batch (refreshSearchImpacts), from the memory
 * after `after` (null: the first), with a progress line on stderr every 100,000 memories. A batch
 * that fails for want of time or by contention — cancelled by the statement timeout (5,000 memories,
 * ~125,000 postings, on the bench's 10⁶ tenant), unanswered past it, a deadlock with an erasure or a
 * reindex — is read again at half the size; each one that passes lets the next grow by a quarter, up
 * to `batch`, as the workers' folds do. A failure of one memory alone, or of another kind, stops the
 * run and says where: `--after` the last memory done resumes it (each batch stands alone).
 */
async function refreshImpacts(
  deps: Deps,
  batch: number,
  after: string | null,
): Promise<{ memories: number; updated: number }> {
  let size = batch;
  const total = { memories: 0, updated: 0 };
  for (let reported = 0; ; ) {
    let step: Awaited<ReturnType<typeof refreshSearchImpacts>>;
    try {
      step = await refreshSearchImpacts(deps.db, after, size);
    } catch (error) {
      if (size > 1 && isContention(error)) {
        size = halvedBatch(size);
        console.error(`amem: a batch ran out of time or met contention; reading ${size} memories at a time`);
        continue;
      }
      const resume = after === null ? "run it again" : `resume with --after ${after}`;
      throw new Error(`${rootMessage(error)} (${total.memories} memories done; ${resume})`);
    }
    total.memories += step.memories;
    total.updated += step.updated;
    if (step.last === null) return total;
    after = step.last;
    size = grownBatch(size, batch);
    if (total.memories - reported >= 100_000) {
      reported = total.memories;
      console.error(`amem: ${total.memories} memories read, ${total.updated} impacts rewritten (--after ${after})`);
    }
  }
}

/** Runs one admin command against the configured Postgres and Redis; sets the exit code. */
export async function runAdmin(argv: string[]): Promise<void> {
  let args: AdminArgs | null;
  try {
    args = readArgs(argv);
    if (args?.values.passwordStdin) args.values.password = await passwordFromStdin();
  } catch (error) {
    console.error(`amem: ${(error as Error).message}`);
    process.exitCode = 1;
    return;
  }
  if (args === null) {
    console.log(USAGE);
    return;
  }
  const config = loadConfig();
  try {
    // As `bun run start` says it: which store does not answer, and what to set.
    await preflight(config.DATABASE_URL, config.REDIS_URL, config.DEPENDENCY_TIMEOUT_MS, config.REDIS_CLUSTER_NODES, {
      createDatabase: false,
    });
  } catch (error) {
    console.error(`amem: ${(error as Error).message}`);
    process.exitCode = 1;
    return;
  }
  const deps = await createDeps(config, "cli", createLogger("silent"));
  try {
    console.log(JSON.stringify(await run(deps, args)));
  } catch (error) {
    const message =
      error instanceof AppError ? (REFUSALS[args.command]?.[error.code as string] ?? error.code) : rootMessage(error);
    console.error(`amem: ${message}`);
    process.exitCode = 1;
  } finally {
    await deps.close();
  }
}

/** What each command's refusals mean in its own words (one code means different things per command). */
const REFUSALS: Record<string, Record<string, string>> = {
  "user create": { conflict: "email already registered" },
  "key create": {
    conflict: `the account holds ${MAX_LIVE_API_KEYS} live keys, the most it may: revoke one first (amem key revoke --id ID)`,
  },
  "key revoke": { not_found: "no such live key" },
};

/** The driver's own words, not drizzle's "Failed query: <the SQL>" wrapped around them. */
function rootMessage(error: unknown): string {
  let at = error as { message?: string; cause?: unknown };
  while (at.cause instanceof Error) at = at.cause;
  return at.message ?? String(error);
}
