import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { createTestContext } from "../helpers";
import { createMcpTestContext } from "../mcp/helpers";
import { SCALAR_PATH } from "../../api/docs/routes";
import { ERROR_STATUS } from "@amem/platform";

/**
 * The README's reference tables are read instead of the code: a route or error code that exists
 * without its row (or a row left behind by a removed one) misleads whoever reads them. Both are
 * compared with what the built apps and the error map actually hold, in both directions.
 */
const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** The text of a README section, from its heading to the next heading of the same or a higher level. */
function section(heading: string): string {
  const level = heading.indexOf(" ");
  const start = README.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "${heading}"`);
  const rest = README.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`^#{1,${level}} `, "m"));
  return next < 0 ? rest : rest.slice(0, next);
}

/** The table that follows a line starting with `label`, as rows of cells. */
function tableAfter(text: string, label: string): string[][] {
  const from = text.indexOf(label);
  if (from < 0) throw new Error(`no "${label}" in the section`);
  const lines = text.slice(from).split("\n");
  const first = lines.findIndex((line) => line.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const codeSpans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** "METHOD /path" for every method × path a row names; `{param}` read as the router's `:param`. */
function documentedRoutes(rows: string[][]): string[] {
  return rows.flatMap(([methods, paths]) =>
    codeSpans(methods!).flatMap((method) =>
      codeSpans(paths!).map((path) => {
        const routerPath = path === "/docs/scalar-<version>.js" ? SCALAR_PATH : path.replace(/\{(\w+)\}/g, ":$1");
        return `${method} ${routerPath}`;
      }),
    ),
  );
}

const sorted = (routes: string[]) => [...routes].sort();

describe("README reference: Endpoints", () => {
  const endpoints = section("### Endpoints");

  it("lists every route of the api exactly once, and nothing else", async () => {
    // Cron routes exist only with CRON_SECRET: the table lists them, so the app is built with them.
    const ctx = await createTestContext({ CRON_SECRET: "cron-secret-0123456789abcdef" });
    const served = ctx.app.routes.map((r) => `${r.method} ${r.path}`);
    expect(sorted(documentedRoutes(tableAfter(endpoints, "**api**")))).toEqual(sorted(served));
  });

  it("lists every route of the MCP server exactly once, and nothing else", async () => {
    const ctx = await createMcpTestContext();
    const served = ctx.app.routes.map((r) => `${r.method} ${r.path}`);
    expect(sorted(documentedRoutes(tableAfter(endpoints, "**MCP server**")))).toEqual(sorted(served));
  });
});

describe("README reference: Errors", () => {
  it("lists every error code with the status the service answers, and nothing else", () => {
    const rows = tableAfter(section("### Errors"), "| code |");
    const documented = Object.fromEntries(rows.map(([code, status]) => [codeSpans(code!)[0], Number(status)]));
    expect(rows.length).toBe(Object.keys(documented).length);
    expect(documented).toEqual(ERROR_STATUS);
  });
});
