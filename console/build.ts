import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

/** Where the built console lives (git-ignored); the api serves it under /app/assets/. */
export const CONSOLE_DIST = join(import.meta.dir, "..", "dist", "console");
const MANIFEST = join(CONSOLE_DIST, "manifest.json");

/** The built files the page links: hashed names, so a browser never runs a stale bundle. */
export type ConsoleManifest = { script: string; style: string };

/**
 * Bundles console/src with Bun (minified, no CDN, nothing fetched at run time). Written to a
 * private directory first and moved in file by file, manifest last: two processes building at
 * once (an api starting while a test run preloads) never serve a half-written file.
 */
export async function buildConsole(): Promise<ConsoleManifest> {
  const staging = `${CONSOLE_DIST}.${process.pid}-${Date.now()}`;
  const result = await Bun.build({
    entrypoints: [join(import.meta.dir, "src", "main.tsx")],
    outdir: staging,
    minify: true,
    target: "browser",
    naming: "[name]-[hash].[ext]",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) throw new AggregateError(result.logs, "console build failed");
  const script = result.outputs
    .find((o) => o.kind === "entry-point")!
    .path.split("/")
    .pop()!;
  const styleName = `style-${Bun.hash(readFileSync(join(import.meta.dir, "src", "style.css"))).toString(36)}.css`;
  await Bun.write(join(staging, styleName), Bun.file(join(import.meta.dir, "src", "style.css")));
  mkdirSync(CONSOLE_DIST, { recursive: true });
  const manifest: ConsoleManifest = { script, style: styleName };
  for (const name of [script, styleName]) renameSync(join(staging, name), join(CONSOLE_DIST, name));
  await Bun.write(join(staging, "manifest.json"), JSON.stringify(manifest));
  renameSync(join(staging, "manifest.json"), MANIFEST);
  rmSync(staging, { recursive: true, force: true });
  pruneOldBuilds(manifest);
  return manifest;
}

/** Earlier builds' files, once old enough that no page served before this build still asks for them. */
function pruneOldBuilds(current: ConsoleManifest): void {
  const keep = new Set([current.script, current.style, "manifest.json"]);
  const cutoffMs = Date.now() - 3_600_000;
  for (const name of readdirSync(CONSOLE_DIST)) {
    const path = join(CONSOLE_DIST, name);
    if (!keep.has(name) && statSync(path).mtimeMs < cutoffMs) rmSync(path, { force: true });
  }
}

/** The newest modification time of any file below `dir` (the console's sources). */
export function newestSourceMs(dir: string): number {
  // A deployment that ships only the built bundle has no sources to be newer than it.
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceMs(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * The manifest of the last build, building first when there is none (a clean clone) or when a
 * source changed after it: an edited screen is never tested or served from an older bundle.
 */
export async function ensureConsoleBuilt(): Promise<ConsoleManifest> {
  if (existsSync(MANIFEST) && statSync(MANIFEST).mtimeMs >= newestSourceMs(join(import.meta.dir, "src")))
    return JSON.parse(readFileSync(MANIFEST, "utf8")) as ConsoleManifest;
  return buildConsole();
}

if (import.meta.main) {
  const manifest = await buildConsole();
  console.log(`console built: ${JSON.stringify(manifest)} in ${CONSOLE_DIST}`);
}
