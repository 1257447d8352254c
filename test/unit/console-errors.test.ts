import { describe, expect, it } from "bun:test";
import { ERROR_CODES } from "@amem/platform";
import { ApiError, ERROR_TEXT, explain } from "../../console/src/api";

/*
 * The console's words for the api's errors. A code it had no words for showed as "Error:
 * payload_too_large" (a probe pasted 2 MB into the revise form); every code the api answers
 * (SPEC §1.1) must read as a sentence.
 */
describe("console explain()", () => {
  it("has a sentence for every error code the api answers, and no words for codes it never answers", () => {
    expect(Object.keys(ERROR_TEXT).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) expect(explain(new ApiError(400, code))).toBe(ERROR_TEXT[code]!);
  });

  it("never shows a bare code, even one it does not know", () => {
    expect(explain(new ApiError(502, "error"))).toBe("Something went wrong. Try again.");
    expect(explain(new TypeError("Failed to fetch"))).toBe(
      "Something went wrong. Check your connection and try again.",
    );
  });
});
