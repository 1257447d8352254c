import { Elysia } from "elysia";
import { type Config, AppError } from "@amem/platform";
import { authorizationServerMetadata, protectedResourceMetadata, resourceOriginOf } from "./metadata";

/**
 * Public documents any page may read (browser-based clients such as the Inspector fetch them
 * cross-origin, research §6.6): CORS `*` without credentials, cached briefly so a changed
 * MCP_PUBLIC_URL reaches clients within minutes.
 */
const PUBLIC_DOCUMENT_HEADERS = {
  "access-control-allow-origin": "*",
  "cache-control": "public, max-age=300",
};
const PREFLIGHT_HEADERS = {
  ...PUBLIC_DOCUMENT_HEADERS,
  "access-control-allow-methods": "GET, OPTIONS",
  "access-control-allow-headers": "MCP-Protocol-Version",
  "access-control-max-age": "86400",
};

const PROTECTED_RESOURCE_PATHS = ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"];
const AUTHORIZATION_SERVER_PATH = "/.well-known/oauth-authorization-server";
/** We are not an OpenID provider: 404 here sends clients to RFC 8414 only (research §1.3, the OIDC-alias trap). */
const OPENID_CONFIGURATION_PATH = "/.well-known/openid-configuration";

/** RFC 9728 protected-resource metadata and RFC 8414 authorization-server metadata (research §1.3). */
export function discoveryRoutes(
  config: Pick<Config, "MCP_PUBLIC_URL">,
  options: { clientIdMetadataDocuments?: boolean } = {},
) {
  const resourceDocument = protectedResourceMetadata(config);
  const serverDocument = authorizationServerMetadata(config, options);
  const originOf = resourceOriginOf(config);
  const app = new Elysia({ name: "discovery" });
  for (const path of [...PROTECTED_RESOURCE_PATHS, AUTHORIZATION_SERVER_PATH, OPENID_CONFIGURATION_PATH]) {
    app.options(path, () => new Response(null, { status: 204, headers: PREFLIGHT_HEADERS }));
  }
  for (const path of PROTECTED_RESOURCE_PATHS) {
    app.get(path, ({ request, set }) => {
      Object.assign(set.headers, PUBLIC_DOCUMENT_HEADERS);
      const origin = originOf(request);
      return origin === config.MCP_PUBLIC_URL ? resourceDocument : protectedResourceMetadata(config, origin);
    });
  }
  return app
    .get(AUTHORIZATION_SERVER_PATH, ({ set }) => {
      Object.assign(set.headers, PUBLIC_DOCUMENT_HEADERS);
      return serverDocument;
    })
    .get(OPENID_CONFIGURATION_PATH, ({ set }) => {
      Object.assign(set.headers, PUBLIC_DOCUMENT_HEADERS);
      throw new AppError("not_found");
    });
}
