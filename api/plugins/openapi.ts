import { openapi } from "@elysiajs/openapi";

/** OpenAPI 3.1 at /api/v1/openapi.json and the API reference page at /docs. */
export function openapiPlugin() {
  return openapi({
    path: "/docs",
    specPath: "/api/v1/openapi.json",
    openapiVersion: "3.1.0",
    documentation: {
      info: { title: "amem — agent memory", version: "v1", description: "Memory core for software agents." },
      components: {
        securitySchemes: {
          apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
          bearer: { type: "http", scheme: "bearer" },
          cronSecret: { type: "apiKey", in: "header", name: "X-Cron-Secret", description: "CRON_SECRET (cron routes only; also accepted as a bearer token there)" },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }],
    },
  });
}
