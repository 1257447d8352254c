/** Sequential requests a benchmark sends itself (sanity checks and probes, not the load: that is wrk's). */

export type ApiInit = RequestInit & { apiKey?: string };

/**
 * A request function for loopback services (the api or a baseline): JSON bodies, the API key
 * header when given, each request aborted after `timeoutMs`.
 */
export function apiClient(timeoutMs: number) {
  return (base: string, path: string, init: ApiInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (init.apiKey) headers.set("x-api-key", init.apiKey);
    if (init.body) headers.set("content-type", "application/json");
    return fetch(base + path, { ...init, headers, signal: AbortSignal.timeout(timeoutMs) });
  };
}

/** The parsed JSON body of an answer with the expected status; any other status fails the benchmark. */
export async function expectStatus(res: Response, status: number, what: string): Promise<unknown> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Calls `work` for every item, at most `concurrency` at a time (setup requests: opening many sessions). */
export async function forEachConcurrently<T>(
  items: T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}
