import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { ERROR_CODES as CLIENT_ERROR_CODES, isAmemError } from "../../clients/typescript/src/client";
import { checkErrorResponses, GENERATED_PATH, generateSource } from "../../clients/typescript/scripts/generate";
import { ERROR_CODES } from "@amem/platform";
import { createTestContext } from "../helpers";

const ctx = await createTestContext();

/** The document the api serves now, fetched as the generator fetches it (in process, with a Host). */
async function currentDocument() {
  const res = await ctx.request("GET", "/api/v1/openapi.json", { headers: { host: "localhost" } });
  expect(res.status).toBe(200);
  return res.body;
}

describe("clients/typescript/src/schema.generated.ts", () => {
  it("is exactly what the api's current OpenAPI document generates (run `bun run client:generate` after an api change)", async () => {
    const expected = await generateSource(await currentDocument());
    const committed = readFileSync(GENERATED_PATH, "utf8");
    // A whole-text comparison; on a mismatch, point at the first differing line rather than 300 KB.
    if (committed !== expected) {
      const a = committed.split("\n");
      const b = expected.split("\n");
      const line = a.findIndex((text, i) => text !== b[i]);
      expect({ line: line + 1, committed: a[line], generated: b[line] }).toEqual({
        line: 0,
        committed: "(the committed file is stale: bun run client:generate)",
        generated: "",
      });
    }
    expect(committed).toBe(expected);
  });

  it("types errors with exactly the service's error codes (shared/platform/errors.ts), and the document's error responses check", async () => {
    checkErrorResponses(await currentDocument());
    expect([...CLIENT_ERROR_CODES]).toEqual([...ERROR_CODES]);
  });

  it("refuses a document whose error response lists no codes (a lost enum would generate `error: string`) or a code of another status", () => {
    const document = {
      paths: {
        "/x": {
          get: {
            responses: {
              "400": {
                content: { "application/json": { schema: { properties: { error: {} as { enum?: string[] } } } } },
              },
            },
          },
        },
      },
    };
    expect(() => checkErrorResponses(document)).toThrow("error response without codes: GET /x 400");
    document.paths["/x"].get.responses["400"].content["application/json"].schema.properties.error = {
      enum: ["invalid_input", "unauthorized"],
    };
    expect(() => checkErrorResponses(document)).toThrow("codes not answered with this status: GET /x 400 unauthorized");
  });
});

describe("isAmemError", () => {
  it("accepts exactly {error: <known code>} and nothing else", () => {
    expect(isAmemError({ error: "unauthorized" })).toBe(true);
    expect(isAmemError({ error: "teapot" })).toBe(false);
    expect(isAmemError({ error: "unauthorized", detail: "x" })).toBe(false);
    expect(isAmemError("unauthorized")).toBe(false);
    expect(isAmemError(null)).toBe(false);
    expect(isAmemError([{ error: "unauthorized" }])).toBe(false);
  });
});
