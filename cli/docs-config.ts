import { withConfigTable } from "@amem/platform";

/** `bun run docs:config`: rewrites the README's configuration table from the config schema. */
const path = new URL("../README.md", import.meta.url).pathname;
const before = await Bun.file(path).text();
const after = withConfigTable(before);
if (after !== before) await Bun.write(path, after);
console.log(
  after === before ? "README.md: configuration table already current" : "README.md: configuration table written",
);
