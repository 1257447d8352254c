import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PinnedSource, placeDatasets } from "../../bench/retrieval/place-data";

/*
 * `bun run retrieval:data` (bench/retrieval/place-data.ts) writes a public dataset only when the
 * file at the pinned commit is the pinned blob. Checked against a git repository made here, whose
 * file is later rewritten: the pinned commit still yields the pinned bytes, another commit is refused.
 */
const scratch = mkdtempSync(join(tmpdir(), "amem-retrieval-data-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function git(dir: string, ...args: string[]): string {
  const run = Bun.spawnSync(["git", "-C", dir, ...args], {
    stdout: "pipe",
    stderr: "pipe",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.test",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.test",
    },
  });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return run.stdout.toString().trim();
}

const repo = join(scratch, "repo");
mkdirSync(join(repo, "eval"), { recursive: true });
git(repo, "init", "--quiet");
writeFileSync(join(repo, "eval", "set.json"), '{"memories":1}\n');
git(repo, "add", ".");
git(repo, "commit", "--quiet", "-m", "first");
const pinnedCommit = git(repo, "rev-parse", "HEAD");
const pinnedBlob = git(repo, "rev-parse", "HEAD:eval/set.json");
writeFileSync(join(repo, "eval", "set.json"), '{"memories":2}\n');
git(repo, "commit", "--quiet", "-am", "rewritten");
const laterCommit = git(repo, "rev-parse", "HEAD");

const source = (commit: string): PinnedSource[] => [
  {
    repo: "someone/set",
    commit,
    files: [{ path: "eval/set.json", blob: pinnedBlob, place: { copy: "set/set.json" } }],
  },
];

describe("retrieval:data", () => {
  it("writes the pinned commit's file, even after the repository moved on", () => {
    const dataDir = join(scratch, "data-1");
    expect(placeDatasets(source(pinnedCommit), dataDir, new Map([["someone/set", repo]]))).toEqual(["set/set.json"]);
    expect(readFileSync(join(dataDir, "set", "set.json"), "utf8")).toBe('{"memories":1}\n');
  });

  it("refuses a file that is not the pinned blob, and writes nothing", () => {
    const dataDir = join(scratch, "data-2");
    expect(() => placeDatasets(source(laterCommit), dataDir, new Map([["someone/set", repo]]))).toThrow(
      `is blob ${git(repo, "rev-parse", `${laterCommit}:eval/set.json`)}, not the pinned ${pinnedBlob}`,
    );
    expect(existsSync(join(dataDir, "set", "set.json"))).toBe(false);
  });
});
