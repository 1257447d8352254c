import type { ConsoleManifest } from "../../console/build";

/**
 * The console's one HTML document: the bundle and its stylesheet, both carrying the response's
 * CSP nonce; everything else is rendered by the script (as text, never as markup). `mail` says
 * whether sign-up and password reset can be offered (they need mail for the tokens).
 */
export function consoleHtml(nonce: string, manifest: ConsoleManifest, mail: boolean): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>amem console</title>
<link rel="stylesheet" nonce="${nonce}" href="/app/assets/${manifest.style}">
<script type="module" nonce="${nonce}" src="/app/assets/${manifest.script}"></script>
</head>
<body data-mail="${mail ? "on" : "off"}"><div id="root"></div><noscript>The amem console needs JavaScript.</noscript></body>
</html>
`;
}
