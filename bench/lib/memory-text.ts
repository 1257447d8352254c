/**
 * A generator of developer-agent-like memories (topic + content) from word lists, for seeding the
 * memories benchmark: varied enough that the full-text and trigram indexes see realistic text
 * (a few hundred distinct content words, common ones much more frequent than rare ones), and
 * reproducible (seeded PRNG). Every content is unique within one generator: a memory ends with a
 * reference (file:line, ticket, commit) and collisions are regenerated.
 */

/** mulberry32: small, fast, seedable. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMPONENTS = [
  "auth middleware",
  "session lease",
  "heartbeat endpoint",
  "search query",
  "migration runner",
  "billing worker",
  "webhook handler",
  "rate limiter",
  "connection pool",
  "job queue",
  "retry loop",
  "cache layer",
  "API gateway",
  "login form",
  "signup flow",
  "password reset",
  "email sender",
  "report export",
  "CSV importer",
  "image resizer",
  "websocket server",
  "GraphQL resolver",
  "REST client",
  "config loader",
  "feature flag service",
  "audit log",
  "metrics exporter",
  "health check",
  "deploy script",
  "CI pipeline",
  "Docker image",
  "Helm chart",
  "Terraform module",
  "database schema",
  "ORM model",
  "test fixture",
  "e2e test suite",
  "unit tests",
  "lint config",
  "TypeScript build",
  "bundle splitter",
  "service worker",
  "notification service",
  "search index",
  "payment provider integration",
  "OAuth callback",
  "token refresh",
  "permissions check",
  "tenant isolation",
  "backup job",
  "log shipper",
];
const TECH = [
  "Postgres",
  "Redis",
  "BullMQ",
  "Bun",
  "Elysia",
  "drizzle",
  "TypeScript",
  "Node 22",
  "Docker",
  "Kubernetes",
  "nginx",
  "S3",
  "Stripe",
  "Sentry",
  "OpenTelemetry",
  "Prometheus",
  "Grafana",
  "GitHub Actions",
  "pnpm",
  "Vite",
  "React",
  "Playwright",
  "vitest",
  "pino",
  "zod",
  "TypeBox",
  "ioredis",
  "postgres.js",
  "pg_trgm",
  "tsvector",
];
const PROBLEMS = [
  "times out after 30 seconds",
  "leaks memory under load",
  "returns a 500 on empty input",
  "deadlocks with the flusher",
  "double-counts retries",
  "drops the last page of results",
  "is flaky on CI",
  "fails when the token expires",
  "ignores the timezone",
  "breaks on unicode in names",
  "holds a row lock too long",
  "exhausts the connection pool",
  "logs secrets in plain text",
  "races with the scheduler",
  "sends duplicate emails",
  "returns stale data from the cache",
  "is slow on cold start",
  "crashes on SIGTERM",
  "mis-orders events with equal timestamps",
  "rejects valid UUIDs",
];
const REASONS = [
  "it keeps p99 under 50 ms",
  "the team already runs it in production",
  "it avoids a second network round trip",
  "the old approach could not be tested",
  "it is what the spec requires",
  "the vendor deprecated the v1 API",
  "it removes a whole class of race conditions",
  "it halves the memory footprint",
  "reviews kept flagging the old one",
  "it works offline",
  "the migration is reversible",
  "it keeps writes idempotent",
  "it makes the logs greppable",
];
const ACTIONS = [
  "add a regression test",
  "bump the timeout",
  "wrap it in a transaction",
  "move it behind a feature flag",
  "add an index on the foreign key",
  "cache the result for 10 minutes",
  "split the handler in two",
  "retry with exponential backoff",
  "validate the payload at the edge",
  "pin the dependency version",
  "document the env variable",
  "log the request id",
  "use a keyset cursor instead of offset",
  "batch the inserts",
  "run it in a background job",
  "stream the response",
];
const PREFERENCES = [
  "small focused commits",
  "explicit return types",
  "tabs over spaces in Makefiles",
  "integration tests over mocks",
  "short PR descriptions with a test plan",
  "British spelling in docs",
  "early returns over nested ifs",
  "named exports only",
  "no default exports",
  "SQL in query files, not in handlers",
  "one assertion per test",
  "conventional commit messages",
];
const PEOPLE = ["Alice", "Bob", "Priya", "Chen", "Marta", "Omar", "Yuki", "Sam", "Lena", "Diego"];
const PROJECTS = ["amem", "billing", "webapp", "infra", "mobile", "data-pipeline", "docs", "cli"];
const DIRS = ["src/api", "src/workers", "src/db", "lib", "app/routes", "packages/core", "scripts", "test"];
const FILES = ["index", "routes", "model", "queries", "service", "client", "schema", "utils", "handler", "config"];

export const SEED_TYPES = ["decision", "fact", "note", "pattern", "blocker", "preference", "event"] as const;
export type SeedType = (typeof SEED_TYPES)[number];

export type GeneratedMemory = {
  memoryType: SeedType;
  topic: string;
  content: string;
  project: string | null;
  tags: string[];
};

export class MemoryTextGenerator {
  private readonly seen = new Set<string>();
  private readonly rand: () => number;

  constructor(seed = 42) {
    this.rand = prng(seed);
  }

  /** Skewed pick: low indexes are much more frequent (roughly Zipf-like), as words are in real notes. */
  private pick<T>(list: readonly T[], skew = 1.6): T {
    return list[Math.floor(Math.pow(this.rand(), skew) * list.length)]!;
  }

  private int(max: number): number {
    return Math.floor(this.rand() * max);
  }

  private reference(): string {
    switch (this.int(4)) {
      case 0:
        return `See ${this.pick(DIRS)}/${this.pick(FILES)}.ts:${1 + this.int(900)}.`;
      case 1:
        return `Tracked in #${1000 + this.int(90_000)}.`;
      case 2:
        return `Commit ${this.int(0xfffffff).toString(16).padStart(7, "0")}.`;
      default:
        return `Noted by ${this.pick(PEOPLE)} on day ${1 + this.int(365)}.`;
    }
  }

  private sentence(type: SeedType): { topic: string; text: string } {
    const c = this.pick(COMPONENTS);
    const t = this.pick(TECH);
    switch (type) {
      case "decision":
        return { topic: `${c}: use ${t}`, text: `Decided to use ${t} for the ${c} because ${this.pick(REASONS)}.` };
      case "fact":
        return {
          topic: `${c} facts`,
          text: `The ${c} runs on ${t} and ${this.pick(PROBLEMS)} unless we ${this.pick(ACTIONS)}.`,
        };
      case "note":
        return { topic: `${c} notes`, text: `Looked into the ${c} with ${t}; next step is to ${this.pick(ACTIONS)}.` };
      case "pattern":
        return {
          topic: `pattern: ${this.pick(ACTIONS)}`,
          text: `When the ${c} ${this.pick(PROBLEMS)}, ${this.pick(ACTIONS)} first, then check ${t}.`,
        };
      case "blocker":
        return {
          topic: `blocked: ${c}`,
          text: `The ${c} ${this.pick(PROBLEMS)}; blocked until ${this.pick(PEOPLE)} can ${this.pick(ACTIONS)}.`,
        };
      case "preference":
        return {
          topic: `preference: ${this.pick(PREFERENCES)}`,
          text: `The user prefers ${this.pick(PREFERENCES)} when working on the ${c}.`,
        };
      case "event":
        return {
          topic: `${c} incident`,
          text: `Yesterday the ${c} ${this.pick(PROBLEMS)} in production; ${this.pick(PEOPLE)} rolled back and we agreed to ${this.pick(ACTIONS)}.`,
        };
    }
  }

  next(): GeneratedMemory {
    for (let attempt = 0; attempt < 100; attempt++) {
      const memoryType = this.pick(SEED_TYPES, 1.2);
      const first = this.sentence(memoryType);
      const parts = [first.text];
      const extra = this.int(3); // 0–2 more sentences, of any type
      for (let i = 0; i < extra; i++) parts.push(this.sentence(this.pick(SEED_TYPES, 1.2)).text);
      parts.push(this.reference());
      const content = parts.join(" ");
      if (this.seen.has(content)) continue;
      this.seen.add(content);
      const project = this.rand() < 0.2 ? null : this.pick(PROJECTS);
      const tags =
        this.rand() < 0.5
          ? []
          : [
              this.pick(TECH)
                .toLowerCase()
                .replace(/[^a-z0-9]+/g, "-"),
            ];
      return { memoryType, topic: first.topic.slice(0, 256), content, project, tags };
    }
    throw new Error("memory generator: 100 collisions in a row");
  }
}

/**
 * About twenty queries as an agent would send them: single words, several words, a phrase, an
 * exclusion, an `or`, a misspelling (served by trigram similarity only) and a miss.
 */
export const SEARCH_QUERIES = [
  "connection pool",
  "postgres timeout",
  "flaky CI",
  "rate limiter",
  '"token refresh"',
  "migration runner reversible",
  "redis cache stale data",
  "webhook duplicate emails",
  "deploy script rollback",
  "keyset cursor",
  "auth middleware -oauth",
  "stripe or payment provider",
  "postgress conection pool",
  "memory leak under load",
  "prefers small commits",
  "exponential backoff retry",
  "tenant isolation permissions",
  "e2e test suite playwright",
  "bullmq job queue deadlock",
  "kafka consumer lag",
];
