import { dashboard } from "./dashboard";

/** Writes the typed dashboard as the JSON operators import into Grafana. */
const path = new URL("./amem.json", import.meta.url).pathname;
await Bun.write(path, `${JSON.stringify(dashboard, null, 2)}\n`);
console.log(`wrote ${path}`);
