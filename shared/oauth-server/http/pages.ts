import type { AuthorizeParams } from "../authorize";
import { isOAuthScope, SCOPE_DESCRIPTIONS } from "@amem/platform";
import { escapeHtml, htmlPage } from "@amem/http";

const STYLE = `
body{font-family:system-ui,-apple-system,sans-serif;margin:0;background:#f5f5f4;color:#1c1917}
main{max-width:26rem;margin:0 auto;padding:2rem 1.25rem}
h1{font-size:1.35rem;margin:0 0 1rem}
p,li{line-height:1.45}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.7rem;font-size:1rem;border:1px solid #a8a29e;border-radius:.4rem}
button{font-size:1rem;padding:.75rem 1.25rem;border-radius:.4rem;border:1px solid #44403c;background:#fff;margin:1rem .5rem 0 0;min-width:7rem}
button.primary{background:#1c1917;color:#fff}
.error{background:#fee2e2;border:1px solid #fca5a5;padding:.6rem .8rem;border-radius:.4rem}
.box{background:#fff;border:1px solid #e7e5e4;border-radius:.6rem;padding:1rem 1.25rem}
code{word-break:break-all}
`;

function page(
  title: string,
  body: string,
  status: number,
  formTargets: string[] = [],
  extra: Record<string, string> = {},
) {
  // No script at all; forms post to this origin and the client's redirect target.
  return htmlPage(
    (nonce) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · amem</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main>${body}</main></body></html>`,
    { img: ["'none'"], formTargets },
    { status, headers: extra },
  );
}

function hiddenFields(params: AuthorizeParams, csrf: string): string {
  const fields = Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v!)}">`);
  fields.push(`<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`);
  return fields.join("\n");
}

/** The login form: email and password of the amem account; no script needed. */
export function loginPage(input: {
  params: AuthorizeParams;
  csrf: string;
  clientName: string;
  formTarget: string;
  error?: string;
  status?: number;
  headers?: Record<string, string>;
}): Response {
  const error = input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : "";
  return page(
    "Sign in",
    `<h1>Sign in to amem</h1>
<p><strong>${escapeHtml(input.clientName)}</strong> wants to use your amem memory.</p>${error}
<form class="box" method="post" action="/authorize/login">
${hiddenFields(input.params, input.csrf)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit">Sign in</button>
</form>`,
    input.status ?? 200,
    [input.formTarget],
    input.headers,
  );
}

/** The consent form: who asks, where the answer goes (the redirect host), what it may do. */
export function consentPage(input: {
  params: AuthorizeParams;
  csrf: string;
  clientName: string;
  redirectHost: string;
  /** Set for a Client ID Metadata Document client: where its document lives, and whether every redirect is localhost. */
  document: { host: string; localhostOnly: boolean } | null;
  formTarget: string;
  email: string;
  scopes: string[];
}): Response {
  const document = input.document
    ? `<p>This application identifies itself by a document published at <strong>${escapeHtml(input.document.host)}</strong>.</p>` +
      (input.document.localhostOnly
        ? `<p class="error" role="alert">Warning: this application only redirects to addresses on your own computer (localhost). Any program can publish a document with this name; allow only if you started this sign-in yourself, from an application you trust.</p>`
        : "")
    : "";
  const scopes = input.scopes
    .map((s) => `<li><code>${escapeHtml(s)}</code> — ${escapeHtml(isOAuthScope(s) ? SCOPE_DESCRIPTIONS[s] : s)}</li>`)
    .join("");
  return page(
    "Authorize",
    `<h1>Allow ${escapeHtml(input.clientName)}?</h1>
<div class="box">
<p><strong>${escapeHtml(input.clientName)}</strong> asks to access the amem account <strong>${escapeHtml(input.email)}</strong>.</p>
<p>After you answer you are sent to <strong>${escapeHtml(input.redirectHost)}</strong>.</p>
${document}
<p>It will be able to:</p><ul>${scopes}</ul>
</div>
<form method="post" action="/authorize/consent">
${hiddenFields(input.params, input.csrf)}
<button class="primary" type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
    200,
    [input.formTarget],
  );
}

/** A request we will not redirect (unknown client, unregistered redirect URI) or a refused form post. */
export function errorPage(message: string, status: number, headers: Record<string, string> = {}): Response {
  return page(
    "Error",
    `<h1>This request cannot continue</h1><p class="error">${escapeHtml(message)}</p>`,
    status,
    [],
    headers,
  );
}
