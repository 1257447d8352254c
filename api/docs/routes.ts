import { Elysia } from "elysia";
import { dirname, join } from "node:path";
import { htmlPage } from "@amem/http";
import { NoQuery } from "@amem/core";

/**
 * The Scalar bundle as installed (pinned in package.json), served from this origin: the reference
 * page works offline and loads nothing from a third party. Its version is in the path, so the
 * file can be cached for good and an upgrade changes the URL.
 */
const SCALAR_ROOT = join(dirname(Bun.resolveSync("@scalar/api-reference", import.meta.dir)), "..");
const SCALAR_VERSION = ((await Bun.file(join(SCALAR_ROOT, "package.json")).json()) as { version: string }).version;
const SCALAR_BUNDLE = Bun.file(join(SCALAR_ROOT, "dist", "browser", "standalone.js"));
export const SCALAR_PATH = `/docs/scalar-${SCALAR_VERSION}.js`;

/**
 * Libraries inside the bundle (theme styles, toasts) create <style> elements without the nonce
 * Scalar reads from the meta tag. Every element the page's own scripts create gets the nonce, so
 * style-src stays nonce-only; markup injected through innerHTML still cannot add a style.
 */
const NONCE_STYLES = `{
  const nonce = document.querySelector('meta[property="csp-nonce"]').content;
  const create = Document.prototype.createElement;
  Document.prototype.createElement = function (tag, options) {
    const element = create.call(this, tag, options);
    if (String(tag).toLowerCase() === "style") element.nonce = nonce;
    return element;
  };
}`;

/**
 * Scalar injects its styles with the nonce it reads from the `csp-nonce` meta tag; default fonts
 * (fetched from Scalar's font host) and telemetry are off, so the page only talks to this origin.
 */
function docsHtml(nonce: string, specPath: string): string {
  const config = JSON.stringify({ url: specPath, withDefaultFonts: false, telemetry: false, hideClientButton: true });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta property="csp-nonce" content="${nonce}">
<title>amem — API reference</title>
</head>
<body>
<div id="api-reference"></div>
<script nonce="${nonce}">${NONCE_STYLES}</script>
<script src="${SCALAR_PATH}" nonce="${nonce}"></script>
<script nonce="${nonce}">Scalar.createApiReference("#api-reference", ${config});</script>
</body>
</html>`;
}

/** The API reference page at /docs (SPEC §11) over the OpenAPI document at `specPath`. */
export function docsRoutes(specPath: string) {
  return new Elysia({ name: "docs-routes", detail: { hide: true } })
    .get(
      "/docs",
      // Scalar renders icons as data: images and its Vue templates set style attributes.
      () =>
        htmlPage((nonce) => docsHtml(nonce, specPath), {
          scripts: true,
          img: ["'self'", "data:"],
          inlineStyleAttributes: true,
        }),
      { query: NoQuery },
    )
    .get(
      SCALAR_PATH,
      () =>
        new Response(SCALAR_BUNDLE, {
          headers: {
            "content-type": "text/javascript; charset=utf-8",
            "cache-control": "public, max-age=31536000, immutable",
            "x-content-type-options": "nosniff",
          },
        }),
      { query: NoQuery },
    );
}
