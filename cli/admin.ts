import { parseArgs } from "node:util";
import { loadConfig, AppError, createLogger, isUuid } from "@amem/platform";
import {
  createDeps,
  type Deps,
  createUser,
  createApiKey,
  revokeApiKeyById,
  isEmail,
  isKeyName,
  isPassword,
} from "@amem/core";
import { findUserByEmail } from "@amem/store";

const USAGE = `usage:
  bun run amem user create --email E [--password P]   → {"id","email","apiKey"}
  bun run amem key create --email E --name N           → {"id","apiKey"}
  bun run amem key revoke --id ID                      → {"id","revoked":true}
  bun run amem hook <claude-code|codex>                 hook JSON on stdin → the harness's hook output
  bun run amem connect <claude-code|codex> [--project-settings] [--write]   the settings block`;

/** The admin CLI: creates users and keys without mail (SPEC §2.3). Prints one JSON line. */
async function run(deps: Deps, argv: string[]): Promise<unknown> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: "string" },
      password: { type: "string" },
      name: { type: "string" },
      id: { type: "string" },
    },
  });
  const command = positionals.join(" ");
  if (values.email !== undefined && !isEmail(values.email)) throw new Error("--email is not an email address");
  if (values.password !== undefined && !isPassword(values.password))
    throw new Error("--password must be 8–256 characters");
  if (values.name !== undefined && !isKeyName(values.name)) throw new Error("--name must be 1–64 characters");
  if (values.id !== undefined && !isUuid(values.id)) throw new Error("--id is not a uuid");
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
  throw new Error(USAGE);
}

/** Runs one admin command against the configured Postgres and Redis; sets the exit code. */
export async function runAdmin(argv: string[]): Promise<void> {
  const config = loadConfig();
  const deps = await createDeps(config, "cli", createLogger("silent"));
  try {
    console.log(JSON.stringify(await run(deps, argv)));
  } catch (error) {
    const message =
      error instanceof AppError
        ? ({ conflict: "email already registered", not_found: "no such live key" }[error.code as string] ?? error.code)
        : (error as Error).message;
    console.error(`amem: ${message}`);
    process.exitCode = 1;
  } finally {
    await deps.close();
  }
}
