import { describe, expect, it } from "bun:test";
import { PacedStream } from "../../api/paced-stream";

/** Whether `promise` has settled once pending callbacks have run (setImmediate runs after them). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

const text = (chunk: Uint8Array | undefined) => new TextDecoder().decode(chunk);

describe("PacedStream", () => {
  it("holds the producer while the reader is highWaterMark chunks behind, and lets it go as the reader reads", async () => {
    const stop = new AbortController();
    const out = new PacedStream(stop, () => "gone", 2);
    expect(await settled(out.write("a"))).toBe(true);
    const second = out.write("b");
    expect(await settled(second)).toBe(false);
    const reader = out.body.getReader();
    expect(text((await reader.read()).value)).toBe("a");
    expect(await settled(second)).toBe(true);
    out.close();
    expect(text((await reader.read()).value)).toBe("b");
    expect((await reader.read()).done).toBe(true);
  });

  it("aborts `stop` with the cancel reason when the reader cancels, releasing a held producer", async () => {
    const stop = new AbortController();
    const out = new PacedStream(stop, () => "gone", 1);
    const held = out.write("a");
    expect(await settled(held)).toBe(false);
    await out.body.cancel();
    expect(await settled(held)).toBe(true);
    expect(stop.signal.reason).toBe("gone");
  });

  it("releases a held producer when `stop` aborts for another reason (a deadline)", async () => {
    const stop = new AbortController();
    const out = new PacedStream(stop, () => "gone", 1);
    const held = out.write("a");
    expect(await settled(held)).toBe(false);
    stop.abort("deadline");
    expect(await settled(held)).toBe(true);
    expect(await settled(out.write("dropped"))).toBe(true);
  });

  it("ends a failed body with an error for the reader, never with a normal end", async () => {
    const stop = new AbortController();
    const out = new PacedStream(stop, () => "gone", 4);
    await out.write("partial");
    out.fail();
    const reader = out.body.getReader();
    await expect(reader.read()).rejects.toThrow("response aborted");
  });
});
