import type { Server } from "@modelcontextprotocol/server";

/** A request handler as the SDK stores it: the JSON-RPC request (method, params) and its context. */
export type RequestHandler = (request: { method: string; params?: Record<string, unknown> }, ctx: unknown) => unknown;

/** The SDK's request dispatch table and the hook it wraps each new handler with (SDK 2.4.0, pinned). */
type HandlerTable = {
  _requestHandlers: Map<string, RequestHandler>;
  _wrapHandler: (method: string, handler: RequestHandler) => RequestHandler;
};

/**
 * Wraps every request handler of `server`: those registered so far and those the SDK adds after
 * the factory returns (`server/discover`). The SDK offers no public hook around its standard
 * methods' handlers (their params check, their paging), so this reaches its dispatch table; the
 * SDK version is pinned, and the tests of each wrapper fail if an upgrade moves it.
 */
export function wrapRequestHandlers(
  server: Server,
  wrap: (method: string, handler: RequestHandler) => RequestHandler,
): void {
  const table = server as unknown as HandlerTable;
  for (const [method, handler] of table._requestHandlers) table._requestHandlers.set(method, wrap(method, handler));
  const sdkWrap = table._wrapHandler.bind(server);
  table._wrapHandler = (method, handler) => wrap(method, sdkWrap(method, handler));
}
