/**
 * `fathom mcp`: a Model Context Protocol server (the official TypeScript SDK) over stdio that
 * keeps the given folders open (`LocalFolder`: loaded, indexed in the background, watched) and
 * answers Fathom's agent tools (tools.ts) from them. stdout carries the protocol only: every
 * log line goes to stderr.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { FrameLimiter, MAX_FRAME_BYTES } from './frames';
import { CallToolRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentFolder } from '../agent/folder';
import { describeTools, inputShapes, outputShapes, runTool, TOOL_NAMES, ToolError } from '../agent/tools';
import { errText } from '../util/errors';

export const SERVER_NAME = 'fathom';

/** An MCP server answering Fathom's tools from `folders` (any transport). */
export function createMcpServer(folders: AgentFolder[], options: { version: string; log?: (m: string) => void }): McpServer {
  const log = options.log ?? (() => undefined);
  const server = new McpServer(
    { name: SERVER_NAME, version: options.version },
    {
      instructions:
        'Fathom searches this workspace by meaning and by name at once (keyword-only where a folder has no embedding model: `status` says). Start with `search` (a developer question, identifiers or a displayed string; mode exact, identifier or regex for text as written, answered "no match" when nothing holds it), then `context` on a hit for the enclosing unit and its neighbours, `read` for a file\'s lines, `definitions` and `references` of a symbol, `files` to list files by glob, `similar` for related code, `i18n` for where a displayed string is defined. With several folders, `folder` picks one. Answers fit a token budget (maxTokens, default 2000, about 4 characters per token); nextCursor pages on.',
    },
  );
  const descriptions = describeTools(folders);
  const call = async (name: string, args: unknown): Promise<CallToolResult> => {
    const t0 = performance.now();
    try {
      const answer = await runTool(name, args ?? {}, { folders });
      log(`${name}: answered in ${Math.round(performance.now() - t0)} ms`);
      return { content: [{ type: 'text', text: answer.text }], structuredContent: answer.structured };
    } catch (err) {
      const message = errText(err);
      // bad input is the agent's to fix; anything else is logged with its stack, never fatal
      if (!(err instanceof ToolError)) log(`${name} failed: ${err instanceof Error ? (err.stack ?? message) : message}`);
      return { content: [{ type: 'text', text: err instanceof ToolError ? message : `Fathom failed: ${message}` }], isError: true };
    }
  };
  for (const name of TOOL_NAMES) {
    server.registerTool(
      name,
      {
        title: descriptions[name].title,
        description: descriptions[name].description,
        inputSchema: inputShapes[name],
        outputSchema: outputShapes[name],
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      // the SDK types the callback per schema; every tool takes one argument object
      ((args: Record<string, unknown>) => call(name, args)) as never,
    );
  }
  // tools/call answered here, not by McpServer's handler: that one validates the arguments
  // itself and answers a wrong type with a dump of validation issues; runTool validates with
  // the same schemas and says what is wrong in one line per argument
  server.server.setRequestHandler(CallToolRequestSchema, (request) => call(request.params.name, request.params.arguments));
  return server;
}

/**
 * The JSON-RPC 2.0 error for a frame the transport could not take: -32700 for text that is not
 * JSON, -32600 for JSON that is no JSON-RPC 2.0 message (`{}`, `[]`, `null`, `jsonrpc: "1.0"`).
 * The transport reports both to `onerror` and drops the frame; the spec wants an answer, with
 * id null since the id could not be read. Undefined for any other error.
 */
export function badFrameReply(err: unknown): { jsonrpc: '2.0'; id: null; error: { code: number; message: string } } | undefined {
  if (err instanceof SyntaxError) return { jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: the frame is not JSON (${err.message})` } };
  if (err instanceof Error && err.name === 'ZodError') return { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: the frame is not a JSON-RPC 2.0 request, notification or response (an object with jsonrpc "2.0")' } };
  return undefined;
}

/** Serves `folders` over stdin/stdout until the client goes away; resolves once closed. */
export async function serveStdio(folders: AgentFolder[], options: { version: string; log?: (m: string) => void }): Promise<{ server: McpServer; closed: Promise<void> }> {
  const server = createMcpServer(folders, options);
  // a frame over MAX_FRAME_BYTES is answered with an error and skipped; the transport's own
  // buffer (which closes the transport when passed) is sized above any frame that reaches it
  const frames = new FrameLimiter(process.stdin, (bytes, id) => {
    const message = `request of ${bytes} bytes not read: a frame may be at most ${MAX_FRAME_BYTES} bytes (10 MiB)`;
    options.log?.(message);
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message } })}\n`);
  });
  const transport = new StdioServerTransport(frames as unknown as NodeJS.ReadStream, process.stdout, { maxBufferSize: MAX_FRAME_BYTES + 2 });
  await server.connect(transport);
  const onerror = server.server.onerror;
  server.server.onerror = (err) => {
    onerror?.(err);
    const reply = badFrameReply(err);
    if (!reply) return;
    options.log?.(`a frame that is not JSON-RPC 2.0: answered ${reply.error.code} (${reply.error.message})`);
    transport.send(reply as never).catch((e: unknown) => options.log?.(`could not answer a bad frame: ${errText(e)}`));
  };
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    // the transport does not notice a closed stdin by itself: the client is gone
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
  });
  return { server, closed };
}
