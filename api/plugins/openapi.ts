import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import { requestUrl } from "@amem/http";
import { Kind } from "@sinclair/typebox";

type RequestBody = { required?: boolean; content?: Record<string, unknown> };
type Response = { content?: Record<string, unknown> };
type Operation = { requestBody?: RequestBody; responses?: Record<string, Response> };
type Document = { paths?: Record<string, Record<string, Operation>> };
export type RouteLike = { method: string; path: string; hooks: { body?: unknown } };

/**
 * A body schema that also accepts no body (a union with `undefined`, as NoBody and ArchiveBody
 * are): the body is optional, and what may be sent is the union's other members.
 */
function optionalBodyOf(schema: unknown): unknown | null {
  const members = (schema as { [Kind]?: string; anyOf?: { [Kind]?: string }[] }).anyOf;
  if ((schema as { [Kind]?: string })[Kind] !== "Union" || !members) return null;
  const sent = members.filter((member) => member[Kind] !== "Undefined");
  if (sent.length === members.length) return null;
  return sent.length === 1 ? sent[0] : { anyOf: sent };
}

/**
 * The generator leaves request bodies without a media type when a custom parser is installed (ours
 * enforces the size limit and JSON-only), so each body schema is put under application/json here;
 * a body that may be left out is published as optional (`required: false`).
 */
function withJsonRequestBodies(document: Document, routes: readonly RouteLike[]): Document {
  for (const route of routes) {
    if (!route.hooks.body) continue;
    const path = route.path.replace(/:([^/]+)/g, "{$1}");
    const operation = document.paths?.[path]?.[route.method.toLowerCase()];
    if (operation?.requestBody && Object.keys(operation.requestBody.content ?? {}).length === 0) {
      const optional = optionalBodyOf(route.hooks.body);
      operation.requestBody.content = { "application/json": { schema: optional ?? route.hooks.body } };
      if (optional) operation.requestBody.required = false;
    }
  }
  return document;
}

/**
 * The generator renders a `t.Void` response (our 204s) as `content: {type: "void", description}`,
 * which OpenAPI reads as two media types named "type" and "description" (and openapi-typescript
 * turned into a 204 with a body). A response without a body has no `content` at all, so that
 * marker is dropped here.
 */
function withoutVoidContent(document: Document): Document {
  for (const operations of Object.values(document.paths ?? {}))
    for (const operation of Object.values(operations))
      for (const response of Object.values(operation.responses ?? {}))
        if (typeof response.content?.type === "string") delete response.content;
  return document;
}

export const SPEC_PATH = "/api/v1/openapi.json";

/** OpenAPI 3.1 at /api/v1/openapi.json. */
export function openapiPlugin(routes: () => readonly RouteLike[]) {
  return new Elysia({ name: "openapi-json-bodies" })
    .onAfterHandle(({ request, response }) => {
      if (requestUrl(request).pathname === SPEC_PATH && response && typeof response === "object") {
        return withoutVoidContent(withJsonRequestBodies(response as Document, routes()));
      }
    })
    .use(
      openapi({
        // The reference page is ours (api/docs): the plugin's loads its UI from a CDN.
        provider: null,
        specPath: SPEC_PATH,
        openapiVersion: "3.1.0",
        documentation: {
          info: { title: "amem — agent memory", version: "v1", description: "Memory core for software agents." },
          components: {
            securitySchemes: {
              apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
              bearer: { type: "http", scheme: "bearer" },
              cronSecret: {
                type: "apiKey",
                in: "header",
                name: "X-Cron-Secret",
                description: "CRON_SECRET (cron routes only; also accepted as a bearer token there)",
              },
            },
          },
          security: [{ apiKey: [] }, { bearer: [] }],
        },
      }),
    );
}
