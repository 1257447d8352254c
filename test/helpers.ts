import { sql } from "drizzle-orm";
import { afterAll } from "bun:test";
import {
  loadConfig,
  type Config,
  createLogger,
  type Logger,
  newId,
  randomToken,
  sha256Hex,
  type Mail,
} from "@amem/platform";
import { createDeps, type Deps, createUser, type Principal } from "@amem/core";
import { Writable } from "node:stream";
import { createApp, type App } from "../api/app";
import { TEST_DATABASE_URL, TEST_REDIS_URL } from "./env";
import { deleteKeys, scanKeys, QUEUES, type QueueName } from "@amem/store";
import { startQueueWorkers } from "../workers/queue-workers";
import { HANDLERS } from "../workers/handlers";

export type TestContext = {
  deps: Deps;
  /** Runs before the context's connections close (last registered, first run). */
  onClose: (cleanup: () => Promise<void>) => void;
  app: App;
  config: Config;
  request: (method: string, path: string, options?: RequestOptions) => Promise<TestResponse>;
};
export type RequestOptions = {
  body?: unknown;
  rawBody?: string;
  apiKey?: string;
  bearer?: string;
  headers?: Record<string, string>;
};
export type TestResponse = { status: number; body: any; headers: Headers; text: string };

let counter = 0;
/** A Redis prefix no other test file or run shares. */
export function uniquePrefix(): string {
  return `t${process.pid}x${Date.now().toString(36)}x${counter++}`;
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: uniquePrefix(),
    RATE_LIMIT: "off",
    LOG_LEVEL: "silent",
    FLUSH_INTERVAL_MS: "100",
    DB_POOL_SIZE: "20",
    ...overrides,
  });
}

/** Deletes every key under the context's prefix (never FLUSHALL a shared Redis). */
export async function deletePrefix(deps: Deps): Promise<void> {
  await deleteKeys(deps.redis, await scanKeys(deps.redis, `${deps.keys.prefix}:*`));
}

/**
 * An app over real Postgres and Redis with its own Redis prefix; closed after the file's tests.
 * Pass a logger (captureLogs) to assert what the services log.
 */
export async function createTestContext(
  overrides: Record<string, string> = {},
  logger: Logger = createLogger("silent"),
): Promise<TestContext> {
  const config = testConfig(overrides);
  const deps = await createDeps(config, "test", logger);
  const app = createApp(deps);
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    await deletePrefix(deps).catch(() => {});
    await deps.close();
  });
  const request = async (method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.apiKey !== undefined) headers["x-api-key"] = options.apiKey;
    if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: response.status, body: parsed, headers: response.headers, text };
  };
  return { deps, app, config, request, onClose: (cleanup) => void cleanups.push(cleanup) };
}

export type Tenant = { userId: string; email: string; apiKey: string };

/**
 * The tenant as the services see it after authentication, for tests that call a service directly
 * (the services read the user; the credential fields are placeholders no service looks up).
 */
export function principalOf(tenant: Pick<Tenant, "userId" | "email">): Principal {
  return {
    userId: tenant.userId,
    email: tenant.email,
    userState: "active",
    credentialKind: "k",
    credentialId: newId(),
    credentialHash: "test",
  };
}

/** A fresh user (tenant) with an API key: every test works in its own tenant. */
export async function newTenant(ctx: TestContext): Promise<Tenant> {
  const email = `${crypto.randomUUID()}@example.test`;
  const user = await createUser(ctx.deps, { email, password: "correct horse battery", withApiKey: true });
  return { userId: user.id, email: user.email, apiKey: user.apiKey! };
}

/** Polls `check` until it returns true or the deadline passes (for write-behind visibility). */
/** Folds every pending memory of the test database into the search statistics, as the workers' flusher does. */
export async function foldAllSearchStats(ctx: TestContext): Promise<void> {
  while (Number((await ctx.deps.db.execute<{ n: number }>(sql`select amem_fold_search_stats(10000) as n`))[0]!.n) > 0);
}

export async function eventually(check: () => Promise<boolean>, withinMs: number, everyMs = 25): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(everyMs);
  }
  return check();
}

export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** An outbox standing in for the mail relay: the context's services send into it. */
export function captureMail(ctx: TestContext): Mail[] {
  const outbox: Mail[] = [];
  // The app holds the same mailer object, so replacing its send reroutes the app's mail too.
  ctx.deps.mailer.send = async (mail) => void outbox.push(mail);
  return outbox;
}

/** The token carried by a mail's link. */
export function tokenOf(mail: Mail | undefined): string {
  return new URL(mail!.link).searchParams.get("token")!;
}

/** A bearer token for the tenant expiring `expiresInMs` from now (negative: already expired). */
export async function insertBearer(
  ctx: Pick<TestContext, "deps">,
  userId: string,
  expiresInMs: number,
): Promise<string> {
  const token = randomToken();
  const expiresAt = new Date(Date.now() + expiresInMs).toISOString();
  await ctx.deps.sql`
    insert into user_sessions (id, user_id, token_hash, expires_at)
    values (${newId()}, ${userId}, ${sha256Hex(token)}, ${expiresAt}::timestamptz)`;
  return token;
}

/** A logger whose JSON lines land in `lines`, for asserting what is (not) logged. */
export function captureLogs(level = "debug"): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
  return { logger: createLogger(level, {}, sink), lines };
}

/**
 * Real BullMQ workers (in this process) for the context's queues, and the api's QueueEvents, as
 * `bun run start` runs them; stopped before the context closes.
 */
export async function startWorkers(ctx: TestContext, queues: readonly QueueName[] = QUEUES) {
  await ctx.deps.jobs.startEvents(queues);
  const workers = startQueueWorkers(ctx.deps, HANDLERS, queues);
  await workers.waitUntilReady();
  ctx.onClose(workers.stop);
  return workers;
}
