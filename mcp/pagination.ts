import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import { wrapRequestHandlers } from "./request-handlers";

/**
 * The paginated list methods. amem answers each in one page and never hands out a `nextCursor`
 * (eleven tools, two prompts, one template, the 25 newest memories), so no cursor is one it issued.
 */
const UNPAGED_LISTS = new Set(["tools/list", "prompts/list", "resources/list", "resources/templates/list"]);

/**
 * Refuses any cursor on a list method with -32602 `invalid_input` ("Invalid cursors SHOULD result
 * in an error with code -32602", MCP utilities/pagination; `invalid_input` is what REST answers a bad
 * cursor). The SDK's list handlers ignore the cursor and answer the first page again, which a client
 * resuming from a stale or forged cursor cannot tell from a real answer.
 */
export function refuseListCursors(server: Server): void {
  wrapRequestHandlers(server, (method, handler) =>
    UNPAGED_LISTS.has(method)
      ? (request, ctx) => {
          if (request.params?.cursor !== undefined) {
            throw new ProtocolError(ProtocolErrorCode.InvalidParams, "invalid_input");
          }
          return handler(request, ctx);
        }
      : handler,
  );
}
