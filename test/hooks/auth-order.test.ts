import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant } from "../helpers";

const ctx = await createTestContext();

/** What the harness would hear: status and body as sent. */
async function post(path: string, headers: Record<string, string>, rawBody: string) {
  const res = await ctx.request("POST", path, { rawBody, headers: { "content-type": "application/json", ...headers } });
  return [res.status, res.text];
}

describe("POST /api/v1/hooks/<harness>: authentication comes before validation", () => {
  for (const harness of ["claude-code", "codex"]) {
    const path = `/api/v1/hooks/${harness}`;

    it(`${harness}: answers 401 unauthorized without a credential, whatever the body or query`, async () => {
      for (const body of ["{}", '{"hook_event_name":42}', "[]"])
        expect(await post(path, {}, body)).toEqual([401, '{"error":"unauthorized"}']);
      expect(await post(`${path}?projcet=typo`, {}, "{}")).toEqual([401, '{"error":"unauthorized"}']);
    });

    it(`${harness}: answers 401 unauthorized for a bad key or bearer, whatever the body`, async () => {
      const credentials: Record<string, string>[] = [
        { "x-api-key": "amem_not_a_key" },
        { authorization: "Bearer not-a-token" },
      ];
      for (const headers of credentials)
        for (const body of ["{}", '{"session_id":""}'])
          expect(await post(path, headers, body)).toEqual([401, '{"error":"unauthorized"}']);
    });

    it(`${harness}: answers 400 invalid_input for a bad body once the key is valid`, async () => {
      const tenant = await newTenant(ctx);
      expect(await post(path, { "x-api-key": tenant.apiKey }, "{}")).toEqual([400, '{"error":"invalid_input"}']);
    });
  }
});
