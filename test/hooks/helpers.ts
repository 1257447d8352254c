import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { TestContext, TestResponse } from "../helpers";

export const FIXTURES = join(import.meta.dir, "../fixtures/hooks");
export type HarnessName = "claude-code" | "codex";
export type Fixture = { harness: HarnessName; version: string; name: string; payload: Record<string, any> };

/** Every recorded payload under test/fixtures/hooks/<harness>/<version>/<name>.json. */
export async function loadFixtures(): Promise<Fixture[]> {
  const fixtures: Fixture[] = [];
  for (const harness of ["claude-code", "codex"] as const) {
    for (const version of readdirSync(join(FIXTURES, harness)).sort()) {
      for (const file of readdirSync(join(FIXTURES, harness, version)).sort()) {
        if (!file.endsWith(".json")) continue;
        const payload = await Bun.file(join(FIXTURES, harness, version, file)).json();
        fixtures.push({ harness, version, name: file.replace(/\.json$/, ""), payload });
      }
    }
  }
  return fixtures;
}

/** One fixture by path (harness/version/name). */
export async function fixture(path: string): Promise<Record<string, any>> {
  return Bun.file(join(FIXTURES, `${path}.json`)).json();
}

/** Posts a hook payload as the harness's HTTP hook does (API key from the hook's headers). */
export function hook(
  ctx: TestContext,
  harness: HarnessName,
  apiKey: string | undefined,
  payload: unknown,
  query = "",
): Promise<TestResponse> {
  return ctx.request("POST", `/api/v1/hooks/${harness}${query}`, { apiKey, body: payload });
}

/** The run id the SessionStart context names. */
export function runIdOf(context: string): string {
  return /amem session run: `([0-9a-f-]{36})`/.exec(context)![1]!;
}
