import { basename } from "node:path";
import { createAmemClient, HARNESSES, type Harness } from "./client";

/** What one run of `amem-hook` prints; it always exits 0 (fail-open: the agent is never held up). */
export type HookRun = { stdout: string; stderr: string };

export type HookInput = {
  /** The hook JSON the harness wrote on stdin. */
  readStdin: () => Promise<string>;
  env: Record<string, string | undefined>;
  fetch?: (request: Request) => Promise<Response>;
};

/** The api's default address (PUBLIC_URL's default), for a hook run without AMEM_URL. */
export const DEFAULT_AMEM_URL = "http://127.0.0.1:3000";
/**
 * Under the harnesses' own hook timeouts and a little above the endpoint's HOOK_BUDGET_MS (1,500),
 * so a slow amem costs the agent at most this long.
 */
export const DEFAULT_TIMEOUT_MS = 1_800;
/** git answers in a few ms; a hung one (a stale network mount) must not eat the whole budget. */
const GIT_TIMEOUT_MS = 300;

/** One line on stderr, nothing on stdout: the harness carries on as if no hook ran. */
const failOpen = (reason: string): HookRun => ({ stdout: "", stderr: `amem-hook: ${reason}\n` });

export const HOOK_USAGE = `usage: amem-hook <${HARNESSES.join("|")}>   (hook JSON on stdin)`;

/**
 * Forwards one harness hook (its JSON on stdin) to `POST /api/v1/hooks/<harness>` with the key from
 * AMEM_API_KEY and prints the answer in the harness's command-hook output format (JSON on stdout,
 * exit 0 — the same shape for Claude Code and Codex). Adds `?project=` (the git top-level
 * directory name of the payload's `cwd`, or AMEM_PROJECT) and `?scope=` (AMEM_SCOPE). Every failure
 * — no key, bad input, network down, timeout, non-2xx, bad JSON — prints nothing and one line on
 * stderr. The whole run, stdin included, is bounded by AMEM_HOOK_TIMEOUT_MS.
 */
export async function runHook(harness: string | undefined, input: HookInput): Promise<HookRun> {
  if (!HARNESSES.includes(harness as Harness)) return failOpen(HOOK_USAGE);
  const timeoutMs = parseTimeout(input.env.AMEM_HOOK_TIMEOUT_MS);
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<HookRun>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(failOpen(`no answer within ${timeoutMs} ms (AMEM_HOOK_TIMEOUT_MS)`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([forward(harness as Harness, input, controller.signal), deadline]);
  } catch (error) {
    return failOpen(describe(error));
  } finally {
    clearTimeout(timer);
  }
}

async function forward(harness: Harness, input: HookInput, signal: AbortSignal): Promise<HookRun> {
  const apiKey = input.env.AMEM_API_KEY;
  if (!apiKey) return failOpen("AMEM_API_KEY is not set");
  const text = await input.readStdin();
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return failOpen("the hook input on stdin is not JSON");
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload))
    return failOpen("the hook input on stdin is not a JSON object");
  const query = await selectorQuery(input.env, (payload as { cwd?: unknown }).cwd, signal);
  const client = createAmemClient({ baseUrl: input.env.AMEM_URL || DEFAULT_AMEM_URL, apiKey, fetch: input.fetch });
  const { data, error, response } = await client.POST(`/api/v1/hooks/${harness}`, {
    params: { query },
    // The harness's JSON goes as it came: the endpoint validates it (and ignores fields it does not
    // know), so its generated body type is not imposed here.
    body: payload as never,
    signal,
  });
  if (!response.ok) {
    const code = typeof error === "object" && error !== null && "error" in error ? ` ${String(error.error)}` : "";
    return failOpen(`the api answered ${response.status}${code}`);
  }
  // 204 or an empty body: nothing to tell the harness.
  if (data === undefined) return { stdout: "", stderr: "" };
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return failOpen("the api's answer is not a JSON object");
  return { stdout: `${JSON.stringify(data)}\n`, stderr: "" };
}

/**
 * The scope AMEM_SCOPE names, if any, and the project: AMEM_PROJECT, else the git top-level
 * directory name of `cwd`, else none (the api then takes the cwd's last segment). With AMEM_SCOPE
 * alone the project used to be left to the api, so a session started in `src/lib` of a repository
 * was filed under project `lib` (a probe's find).
 */
async function selectorQuery(
  env: Record<string, string | undefined>,
  cwd: unknown,
  signal: AbortSignal,
): Promise<{ project?: string; scope?: string }> {
  const scope = env.AMEM_SCOPE ? { scope: env.AMEM_SCOPE } : {};
  if (env.AMEM_PROJECT) return { ...scope, project: env.AMEM_PROJECT };
  if (typeof cwd !== "string" || cwd === "") return scope;
  const project = await gitProject(cwd, signal);
  return project ? { ...scope, project } : scope;
}

/** The name of the git top-level directory holding `cwd`; null without git, outside a repository, or when slow. */
export async function gitProject(cwd: string, signal?: AbortSignal): Promise<string | null> {
  try {
    const git = Bun.spawn(["git", "-C", cwd, "rev-parse", "--show-toplevel"], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
      signal: signal
        ? AbortSignal.any([signal, AbortSignal.timeout(GIT_TIMEOUT_MS)])
        : AbortSignal.timeout(GIT_TIMEOUT_MS),
    });
    const [out, code] = await Promise.all([new Response(git.stdout).text(), git.exited]);
    const top = out.trim();
    return code === 0 && top ? basename(top) : null;
  } catch {
    return null;
  }
}

function parseTimeout(value: string | undefined): number {
  const ms = Number(value);
  return value && Number.isInteger(ms) && ms >= 50 && ms <= 60_000 ? ms : DEFAULT_TIMEOUT_MS;
}

function describe(error: unknown): string {
  // openapi-fetch parses a 2xx body as JSON; everything else thrown is the request failing.
  if (error instanceof SyntaxError) return "the api's answer is not JSON";
  const message = error instanceof Error ? error.message : String(error);
  return `could not reach amem: ${message.split("\n")[0]}`;
}
