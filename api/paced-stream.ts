const encoder = new TextEncoder();

/**
 * A response body fed by a producer at the reader's pace: `write` queues a chunk and waits while
 * the reader is `highWaterMark` chunks behind, so a slow client slows the producer instead of
 * filling memory. The reader cancelling (a client that stops reading or disconnects) aborts
 * `stop` with `cancelReason`; `stop` aborting for any reason wakes a waiting producer, whose writes
 * are dropped from then on (it sees the abort at its next check).
 */
export class PacedStream {
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private resume: (() => void) | null = null;
  private ended = false;

  constructor(
    private readonly stop: AbortController,
    cancelReason: () => unknown,
    highWaterMark = 2,
  ) {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => this.wake(),
        cancel: () => {
          this.ended = true;
          stop.abort(cancelReason());
        },
      },
      new CountQueuingStrategy({ highWaterMark }),
    );
    stop.signal.addEventListener("abort", () => this.wake(), { once: true });
  }

  async write(text: string): Promise<void> {
    if (this.ended || this.stop.signal.aborted) return;
    this.controller.enqueue(encoder.encode(text));
    while (!this.ended && !this.stop.signal.aborted && (this.controller.desiredSize ?? 0) <= 0) {
      await new Promise<void>((resolve) => {
        this.resume = resolve;
      });
    }
  }

  /** The body ends normally: the reader has everything. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.controller.close();
  }

  /**
   * The body ends as failed: the reader gets an error instead of an end (over HTTP the response is
   * cut off without its final chunk), so a partial body is never taken for a whole one.
   */
  fail(): void {
    if (this.ended) return;
    this.ended = true;
    this.controller.error(new Error("response aborted"));
  }

  private wake(): void {
    const resume = this.resume;
    this.resume = null;
    resume?.();
  }
}
