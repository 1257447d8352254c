import {
  type McpServerFactory,
  ProtocolError,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

/** The first revision without JSON-RPC batching (its changelog: "Remove support for JSON-RPC batching"). */
const FIRST_BATCHLESS_REVISION = "2025-06-18";

/** Whether a 2025-era request's MCP-Protocol-Version forbids a batch body (absent: 2025-03-26, which allows one). */
function forbidsBatches(request: Request): boolean {
  const version = request.headers.get("mcp-protocol-version");
  return version !== null && SUPPORTED_PROTOCOL_VERSIONS.includes(version) && version >= FIRST_BATCHLESS_REVISION;
}

/**
 * Refuses a JSON-RPC batch array sent under 2025-06-18 or 2025-11-25 with 400 -32600 Invalid
 * Request, before any of its messages runs: those revisions say the POST body MUST be a single
 * request, notification or response (transports, "Sending Messages to the Server"), and a batch
 * would also multiply the work of one rate-limited request (a 2025-03-26 batch, which is allowed,
 * is charged a request per message by `chargeBatch` before it runs). The SDK's stateless legacy transport
 * serves batches for every 2025 revision (it refuses them only for 2026-07-28) and has no option
 * for it, so the factory wraps the transport the handler connects a 2025-era server to: its
 * `handleRequest` receives the body the handler already parsed.
 */
export function refusingLegacyBatches(
  factory: McpServerFactory,
  onRefused: (error: Error) => void,
  chargeBatch: (request: Request, calls: number) => Promise<Response | null>,
): McpServerFactory {
  return async (ctx) => {
    const product = await factory(ctx);
    if (ctx.era !== "legacy") return product;
    const connect = product.connect.bind(product);
    product.connect = async (transport: Transport) => {
      await connect(transport);
      if (!(transport instanceof WebStandardStreamableHTTPServerTransport)) return;
      const handle = transport.handleRequest.bind(transport);
      transport.handleRequest = async (request, options) => {
        if (!Array.isArray(options?.parsedBody)) return handle(request, options);
        if (!forbidsBatches(request)) {
          // A 2025-03-26 batch runs every message: each counts against the rate limit, as it would sent alone.
          const refused = await chargeBatch(request, options.parsedBody.length);
          return refused ?? handle(request, options);
        }
        const error = new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          `Bad Request: JSON-RPC batches are not supported by protocol revision ${request.headers.get("mcp-protocol-version")}`,
        );
        onRefused(error);
        return Response.json(
          { jsonrpc: "2.0", error: { code: error.code, message: error.message }, id: null },
          { status: 400 },
        );
      };
    };
    return product;
  };
}
