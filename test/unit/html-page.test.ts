import { describe, expect, it } from "bun:test";
import { htmlPage } from "@amem/http";

const directivesOf = (res: Response) =>
  Object.fromEntries(
    res.headers
      .get("content-security-policy")!
      .split("; ")
      .map((d) => [d.split(" ")[0]!, d.split(" ").slice(1)]),
  );

describe("htmlPage", () => {
  it("renders with a fresh nonce that alone lets its styles run, and forbids framing, caching and referrers", async () => {
    const res = htmlPage(
      (nonce) => `<style nonce="${nonce}"></style>`,
      {},
      { status: 400, headers: { "x-extra": "1" } },
    );
    const directives = directivesOf(res);
    const nonce = /^'nonce-(.+)'$/.exec(directives["style-src"]![0]!)![1]!;
    expect(await res.text()).toBe(`<style nonce="${nonce}"></style>`);
    expect(res.status).toBe(400);
    expect(directives).toEqual({
      "default-src": ["'none'"],
      "style-src": [`'nonce-${nonce}'`],
      "base-uri": ["'none'"],
      "form-action": ["'none'"],
      "frame-ancestors": ["'none'"],
    });
    expect(Object.fromEntries(res.headers)).toEqual({
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": res.headers.get("content-security-policy")!,
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
      "x-extra": "1",
    });
    const again = htmlPage((n) => n);
    expect(await again.text()).not.toBe(nonce);
  });

  it("allows scripts, images, style attributes and form targets only when the page asks", () => {
    const directives = directivesOf(
      htmlPage(() => "", {
        scripts: true,
        img: ["'self'", "data:"],
        inlineStyleAttributes: true,
        formTargets: ["http://127.0.0.1:8765"],
      }),
    );
    expect(directives["script-src"]).toEqual(directives["style-src"]);
    expect(directives["connect-src"]).toEqual(["'self'"]);
    expect(directives["img-src"]).toEqual(["'self'", "data:"]);
    expect(directives["style-src-attr"]).toEqual(["'unsafe-inline'"]);
    expect(directives["form-action"]).toEqual(["'self'", "http://127.0.0.1:8765"]);
    expect(directives["frame-ancestors"]).toEqual(["'none'"]);
  });
});
