import { describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { Glob } from "bun";

/**
 * The README is the front door and docs/ holds the decision record it links to: a link that
 * points at a moved file or a renamed heading is a dead end for the reader. Every relative link
 * in README.md and docs/**\/*.md must name an existing file or folder and, with a `#fragment`, a
 * heading of that Markdown file (GitHub's anchors).
 */
const ROOT = resolve(import.meta.dir, "../..");

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFencedCode(markdown).split("\n")) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Fenced code is not Markdown: a `[x](y)` or `# x` inside it is neither a link nor a heading. */
function withoutFencedCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

/** The link targets of a Markdown text (inline links; images included), code left out. */
function linkTargets(markdown: string): string[] {
  const text = withoutFencedCode(markdown).replace(/`[^`\n]*`/g, "code");
  const targets: string[] = [];
  for (const match of text.matchAll(/\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    targets.push(match[1]!);
  }
  return targets;
}

/** Each broken relative link of the files, as "file: target (why)". */
export function brokenLinks(root: string, files: string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const markdown = readFileSync(join(root, file), "utf8");
    for (const target of linkTargets(markdown)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …: not ours to check
      const [pathPart, fragment] = target.split("#", 2) as [string, string | undefined];
      const path = pathPart === "" ? join(root, file) : resolve(dirname(join(root, file)), decodeURI(pathPart));
      if (!existsSync(path)) {
        broken.push(`${file}: ${target} (no such file)`);
        continue;
      }
      if (fragment === undefined) continue;
      if (statSync(path).isDirectory() || !path.endsWith(".md")) {
        broken.push(`${file}: ${target} (a fragment on something that is not a Markdown file)`);
        continue;
      }
      if (!anchorsOf(readFileSync(path, "utf8")).has(fragment)) {
        broken.push(`${file}: ${target} (no heading #${fragment} in ${relative(root, path)})`);
      }
    }
  }
  return broken;
}

function documentationFiles(): string[] {
  const docs = [...new Glob("docs/**/*.md").scanSync({ cwd: ROOT })].sort();
  return ["README.md", ...docs];
}

describe("links in README.md and docs/", () => {
  it("every relative link names an existing file and, with a #fragment, an existing heading", () => {
    const files = documentationFiles();
    expect(files.length).toBeGreaterThan(1);
    expect(brokenLinks(ROOT, files)).toEqual([]);
  });

  it("every decision file is linked from the README's decision index", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const index = readme.slice(readme.indexOf("\n## Decision record"));
    const linked = new Set(linkTargets(index).map((t) => t.split("#")[0]));
    const decisions = [...new Glob("docs/decisions/*.md").scanSync({ cwd: ROOT })].sort();
    expect(decisions.length).toBeGreaterThan(0);
    expect(decisions.filter((file) => !linked.has(file))).toEqual([]);
  });

  it("reports a missing file, a missing heading and a fragment on a folder (the checker itself)", () => {
    const dir = mkdtempSync(join(tmpdir(), "amem-docs-links-"));
    try {
      writeFileSync(
        join(dir, "a.md"),
        [
          "# Start here",
          "## Setup in one step: `bun run amem connect`",
          "[ok](b.md#the-b-heading) [ok too](#setup-in-one-step-bun-run-amem-connect) [web](https://example.com/x)",
          "[gone](missing.md) [wrong heading](b.md#no-such-heading) [folder](./#x)",
          "`[in code](nowhere.md)`",
          "```",
          "[in a fence](nowhere-either.md)",
          "```",
        ].join("\n"),
      );
      writeFileSync(join(dir, "b.md"), "# The B heading\n");
      expect(brokenLinks(dir, ["a.md"])).toEqual([
        "a.md: missing.md (no such file)",
        "a.md: b.md#no-such-heading (no heading #no-such-heading in b.md)",
        "a.md: ./#x (a fragment on something that is not a Markdown file)",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
