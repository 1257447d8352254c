import { afterAll, describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONSOLE_DIST, ensureConsoleBuilt, newestSourceMs } from "../../console/build";

/*
 * ensureConsoleBuilt rebuilds when a console source is newer than the last build's manifest, so a
 * screen edited since is never tested or served from an older bundle. What it compares: the newest
 * modification time of any file below the sources, nested folders included.
 */
const dir = mkdtempSync(join(tmpdir(), "amem-console-src-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("console build freshness", () => {
  it("reads the newest file below the sources, in nested folders too", () => {
    mkdirSync(join(dir, "screens"));
    writeFileSync(join(dir, "main.tsx"), "");
    writeFileSync(join(dir, "screens", "agents.tsx"), "");
    const at = (path: string, seconds: number) => utimesSync(path, seconds, seconds);
    at(join(dir, "main.tsx"), 1_000);
    at(join(dir, "screens", "agents.tsx"), 2_000);
    expect(newestSourceMs(dir)).toBe(2_000_000);
    at(join(dir, "main.tsx"), 3_000);
    expect(newestSourceMs(dir)).toBe(3_000_000);
  });

  it("rebuilds when a source is newer than the last build, and not otherwise", async () => {
    const manifest = join(CONSOLE_DIST, "manifest.json");
    await ensureConsoleBuilt();
    const built = statSync(manifest).mtimeMs;
    await ensureConsoleBuilt();
    expect(statSync(manifest).mtimeMs).toBe(built);
    // A source touched after the build (its content unchanged: the rebuilt bundle is the same file).
    const source = join(import.meta.dir, "..", "..", "console", "src", "style.css");
    const later = (built + 1) / 1000;
    utimesSync(source, later, later);
    await Bun.sleep(5);
    await ensureConsoleBuilt();
    expect(statSync(manifest).mtimeMs).toBeGreaterThan(built);
  });
});
