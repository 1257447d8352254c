import type { Server } from "bun";

/*
 * A model server on 127.0.0.1 that real harnesses talk to instead of Anthropic's or OpenAI's: it
 * speaks the two wire formats they stream (Anthropic Messages with `stream: true`, OpenAI Responses)
 * as server-sent events, records every request body, and answers what the test scripts — a tool
 * call or a final message — so a whole agent turn runs offline and deterministically.
 *
 * Event shapes: Anthropic's "Streaming Messages" reference (message_start, content_block_start /
 * _delta / _stop with text_delta or input_json_delta, message_delta with the stop_reason,
 * message_stop); OpenAI's Responses streaming events (response.created, response.output_item.added
 * / .done, response.output_text.delta, response.function_call_arguments.delta / .done,
 * response.completed). Each harness checked here parses exactly these (the tests fail otherwise).
 */

export type ModelApi = "anthropic" | "openai";

/** What the scripted model says next: plain text (the turn ends) or one tool call. */
export type ModelReply = { text: string } | { tool: string; input: Record<string, unknown>; namespace?: string };

/** One request a harness sent: its API, path and parsed JSON body. */
export type ModelRequest = { api: ModelApi; path: string; body: Record<string, any> };

export class ModelStub {
  readonly requests: ModelRequest[] = [];
  private server: Server<undefined> | null = null;
  private calls = 0;

  /** `script` chooses the reply from the request (the conversation so far is in its body). */
  constructor(private readonly script: (request: ModelRequest) => ModelReply) {}

  get url(): string {
    return `http://127.0.0.1:${this.server!.port}`;
  }

  start(): void {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => this.answer(request),
    });
  }

  async stop(): Promise<void> {
    await this.server?.stop(true);
  }

  private async answer(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    // Claude Code probes the base URL with a HEAD before its first call.
    if (request.method !== "POST") return new Response(null, { status: 200 });
    const api: ModelApi | null = path.endsWith("/messages")
      ? "anthropic"
      : path.endsWith("/responses")
        ? "openai"
        : null;
    if (!api) return new Response("not found", { status: 404 });
    const body = (await request.json()) as Record<string, any>;
    const recorded = { api, path, body };
    this.requests.push(recorded);
    const reply = this.script(recorded);
    const id = `${++this.calls}`;
    const events = api === "anthropic" ? anthropicEvents(id, body, reply) : openaiEvents(id, body, reply);
    // A non-streaming call (some harness side requests) gets the same reply as one JSON body.
    if (body.stream === false && api === "anthropic") return Response.json(anthropicMessage(id, body, reply));
    const text = events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
    return new Response(text, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  }
}

const toolId = (id: string) => `toolu_stub${id}`;

function anthropicMessage(id: string, body: Record<string, any>, reply: ModelReply) {
  const content =
    "text" in reply
      ? [{ type: "text", text: reply.text }]
      : [{ type: "tool_use", id: toolId(id), name: reply.tool, input: reply.input }];
  return {
    id: `msg_stub${id}`,
    type: "message",
    role: "assistant",
    model: body.model,
    content,
    stop_reason: "text" in reply ? "end_turn" : "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 10 },
  };
}

function anthropicEvents(id: string, body: Record<string, any>, reply: ModelReply): [string, unknown][] {
  const message = { ...anthropicMessage(id, body, reply), content: [], stop_reason: null };
  const block =
    "text" in reply
      ? { start: { type: "text", text: "" }, delta: { type: "text_delta", text: reply.text } }
      : {
          start: { type: "tool_use", id: toolId(id), name: reply.tool, input: {} },
          delta: { type: "input_json_delta", partial_json: JSON.stringify(reply.input) },
        };
  return [
    ["message_start", { type: "message_start", message }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: block.start }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: block.delta }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: "text" in reply ? "end_turn" : "tool_use", stop_sequence: null },
        usage: { output_tokens: 10 },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  ];
}

function openaiEvents(id: string, body: Record<string, any>, reply: ModelReply): [string, unknown][] {
  const item =
    "text" in reply
      ? {
          id: `msg_stub${id}`,
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: reply.text, annotations: [] }],
        }
      : {
          id: `fc_stub${id}`,
          type: "function_call",
          status: "completed",
          call_id: `call_stub${id}`,
          name: reply.tool,
          ...(reply.namespace ? { namespace: reply.namespace } : {}),
          arguments: JSON.stringify(reply.input),
        };
  const response = {
    id: `resp_stub${id}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    model: body.model,
    output: [item],
    usage: {
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 20,
    },
  };
  const delta: [string, unknown] =
    "text" in reply
      ? [
          "response.output_text.delta",
          {
            type: "response.output_text.delta",
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            delta: reply.text,
          },
        ]
      : [
          "response.function_call_arguments.delta",
          {
            type: "response.function_call_arguments.delta",
            item_id: item.id,
            output_index: 0,
            delta: JSON.stringify(reply.input),
          },
        ];
  const added =
    "text" in reply
      ? { ...item, status: "in_progress", content: [] }
      : { ...item, status: "in_progress", arguments: "" };
  return [
    ["response.created", { type: "response.created", response: { ...response, status: "in_progress", output: [] } }],
    ["response.output_item.added", { type: "response.output_item.added", output_index: 0, item: added }],
    delta,
    ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
    ["response.completed", { type: "response.completed", response }],
  ];
}
