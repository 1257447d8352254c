import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

/**
 * The layout's rules (README "Layout"), held by the build: each package under shared/ is entered
 * only through its front door (`@amem/<name>`, its index.ts); a package imports only the packages
 * its package.json declares (platform ← store ← core ← http ← oauth-server) and never a process
 * folder; processes never import each other; only the HTTP-side packages import Elysia. A
 * package's own test/ folder is not behind the door (other tests may use its helpers), and its
 * tests may start the processes.
 */
const ROOT = normalize(join(import.meta.dir, "..", ".."));
const PROCESS_FOLDERS = ["api", "mcp", "workers", "cli", "bench", "test", "console", "clients", "ops"];
const ELYSIA_PACKAGES = new Set(["http", "oauth-server"]);

type Package = { name: string; dir: string; allowed: Set<string> };

function readPackages(): Map<string, Package> {
  const packages = new Map<string, Package>();
  for (const name of readdirSync(join(ROOT, "shared"))) {
    const manifest = join(ROOT, "shared", name, "package.json");
    if (!existsSync(manifest)) continue;
    const json = JSON.parse(readFileSync(manifest, "utf8")) as { name: string; dependencies?: Record<string, string> };
    const allowed = new Set(Object.keys(json.dependencies ?? {}).filter((d) => d.startsWith("@amem/")));
    packages.set(json.name, { name: json.name, dir: `shared/${name}`, allowed });
  }
  return packages;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])([^"'\n]+)\1/g;

/** Every rule a file's imports break; `file` is relative to the repo root. */
function violationsOf(file: string, text: string, packages: Map<string, Package>): string[] {
  const owner = [...packages.values()].find((p) => file.startsWith(`${p.dir}/`));
  const isTest = file.startsWith("test/") || /\/test\//.test(file);
  const found: string[] = [];
  for (const [, , spec] of text.matchAll(SPECIFIER)) {
    if (!spec) continue;
    if (spec.startsWith("@amem/")) {
      const [scope, name, ...deep] = spec.split("/");
      const target = packages.get(`${scope}/${name}`);
      if (!target) continue; // @amem/client and the like: not a shared package
      if (deep.length > 0) found.push(`${file}: "${spec}" reaches past the front door of ${target.name}`);
      if (owner && target.name === owner.name)
        found.push(`${file}: "${spec}" is its own package's door (use a relative import)`);
      else if (owner && !owner.allowed.has(target.name))
        found.push(`${file}: ${owner.name} imports ${target.name}, which its package.json does not declare`);
      continue;
    }
    if (owner && (spec === "elysia" || spec.startsWith("@elysiajs/")) && !ELYSIA_PACKAGES.has(owner.dir.slice(7)))
      found.push(`${file}: ${owner.name} imports ${spec} (only ${[...ELYSIA_PACKAGES].join(", ")} may)`);
    if (!spec.startsWith(".")) continue;
    const target = normalize(join(dirname(file), spec));
    const into = [...packages.values()].find((p) => target === p.dir || target.startsWith(`${p.dir}/`));
    if (into && into !== owner && !(isTest && target.startsWith(`${into.dir}/test/`)))
      found.push(`${file}: "${spec}" reaches into ${into.name} past its front door`);
    const processes = ["api", "mcp", "workers", "cli"];
    const [from, to] = [file.split("/")[0]!, target.split("/")[0]!];
    if (processes.includes(from) && processes.includes(to) && from !== to)
      found.push(`${file}: the process ${from}/ imports the process ${to}/ ("${spec}")`);
    if (owner && !target.startsWith(`${owner.dir}/`) && !into) {
      const top = target.split("/")[0]!;
      if (PROCESS_FOLDERS.includes(top) && !isTest)
        found.push(`${file}: ${owner.name} imports the process folder ${top}/ ("${spec}")`);
    }
  }
  return found;
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".") || entry.name === "dist") continue;
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (/\.(ts|tsx)$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** The declared package graph has no cycle (a door importing a door that imports it back). */
function cycleIn(packages: Map<string, Package>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const visit = (name: string, path: string[]): string[] | null => {
    if (state.get(name) === "done") return null;
    if (state.get(name) === "open") return [...path, name];
    state.set(name, "open");
    for (const next of packages.get(name)?.allowed ?? []) {
      const cycle = visit(next, [...path, name]);
      if (cycle) return cycle;
    }
    state.set(name, "done");
    return null;
  };
  for (const name of packages.keys()) {
    const cycle = visit(name, []);
    if (cycle) return cycle;
  }
  return null;
}

describe("packages with front doors (README Layout)", () => {
  const packages = readPackages();

  it("has the five packages, each with one index.ts as its door", () => {
    expect([...packages.keys()].sort()).toEqual([
      "@amem/core",
      "@amem/http",
      "@amem/oauth-server",
      "@amem/platform",
      "@amem/store",
    ]);
    for (const p of packages.values()) expect(existsSync(join(ROOT, p.dir, "index.ts"))).toBe(true);
  });

  it("declares an acyclic direction: platform imports no package, store only platform, core only store and platform, http not oauth-server", () => {
    expect(cycleIn(packages)).toBeNull();
    expect([...packages.get("@amem/platform")!.allowed]).toEqual([]);
    expect([...packages.get("@amem/store")!.allowed].sort()).toEqual(["@amem/platform"]);
    expect([...packages.get("@amem/core")!.allowed].sort()).toEqual(["@amem/platform", "@amem/store"]);
    expect([...packages.get("@amem/http")!.allowed].sort()).toEqual(["@amem/core", "@amem/platform", "@amem/store"]);
  });

  it("every import in the tree keeps to the rules", () => {
    const self = "test/unit/package-doors.test.ts"; // its own examples below break the rules on purpose
    const broken = sourceFiles("")
      .filter((file) => file !== self)
      .flatMap((file) => violationsOf(file, readFileSync(join(ROOT, file), "utf8"), packages));
    expect(broken).toEqual([]);
  });

  it("catches each kind of break (so an empty list above means something)", () => {
    const check = (file: string, line: string) => violationsOf(file, line, packages).length;
    expect(check("api/x.ts", 'import { a } from "../shared/core/memories/search";')).toBe(1);
    expect(check("api/x.ts", 'import { a } from "@amem/core/memories/search";')).toBe(1);
    expect(check("shared/store/x.ts", 'import { a } from "@amem/core";')).toBe(1);
    expect(check("shared/core/x.ts", 'import { a } from "@amem/core";')).toBe(1);
    expect(check("shared/core/x.ts", 'import { Elysia } from "elysia";')).toBe(1);
    expect(check("shared/core/x.ts", 'import { a } from "../../api/app";')).toBe(1);
    expect(check("mcp/app.ts", 'import { a } from "../api/health/routes";')).toBe(1);
    expect(check("shared/core/test/x.test.ts", 'import { a } from "../../../api/app";')).toBe(0);
    expect(check("shared/core/x.ts", 'const { a } = await import("../store/db/client");')).toBe(1);
    expect(check("test/x.test.ts", 'import { a } from "../shared/oauth-server/test/context";')).toBe(0);
    expect(check("shared/core/x.ts", 'import { a } from "@amem/store";')).toBe(0);
    expect(check("shared/http/x.ts", 'import { Elysia } from "elysia";')).toBe(0);
  });
});
