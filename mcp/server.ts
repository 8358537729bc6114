/**
 * POST /mcp: the Model Context Protocol over Streamable HTTP, stateless (no session: every request
 * stands alone, so any replica answers it), with JSON answers.
 *
 * A tool call runs the tool's REST operation through this same app, in process (light-my-request), with
 * the caller's Authorization header and client address: the route's validation, scope, bucket, cache
 * and error codes are the REST path's own, not written again. A REST error answers a tool error
 * (`isError`) whose structured content is the REST envelope, its code included.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import express, { type Request, type RequestHandler, type Response } from 'express';
import inject from 'light-my-request';
import { ApiError } from '../lib/errors.js';
import { clientId } from '../rest/conventions.js';
import { errorEnvelope } from '../rest/envelope.js';
import type { McpResource } from './resources.js';
import type { McpTool } from './tools.js';

export interface McpOptions {
  /** The app's own request listener: where a tool's REST call runs. */
  dispatch: (req: IncomingMessage, res: ServerResponse) => void;
  /** Built on first use (they derive from the OpenAPI document). */
  tools: () => readonly McpTool[];
  resources: () => readonly McpResource[];
  /** The bucket /mcp itself counts in, before any tool's own. */
  limit: RequestHandler;
  onlyPost: RequestHandler;
  trustProxy: boolean;
  docsUrl: string;
  bodyLimitBytes: number;
  version: string;
}

const INSTRUCTIONS =
  'A public catalogue of 1inch Aqua liquidity strategies (SwapVM programs) on several chains. Read tools need no key. ' +
  'Prepare tools return UNSIGNED transactions for the caller’s own wallet to sign; the service never signs or sends. ' +
  'They need the API key as `Authorization: Bearer <key>` on the MCP request. Amounts are integer strings in base units.';

interface Caller {
  authorization: string | undefined;
  host: string | undefined;
  address: string;
  requestId: string;
}

export function serveMcp(app: express.Express, options: McpOptions): void {
  const json = express.json({ limit: options.bodyLimitBytes, strict: true, type: () => true });
  app.all('/mcp', options.limit, options.onlyPost, json, (req: Request, res: Response, next) => {
    const caller: Caller = {
      authorization: req.headers.authorization,
      host: req.headers.host,
      address: clientId(req, options.trustProxy),
      requestId: String(res.locals.requestId),
    };
    const server = serverFor(options, caller);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res, req.body))
      .catch(next);
  });
}

function serverFor(options: McpOptions, caller: Caller): Server {
  const server = new Server(
    { name: 'aqua-catalogue', version: options.version },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: options.tools().map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: t.annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = options.tools().find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `No tool named ${request.params.name}.`);
    return callTool(options, tool, request.params.arguments ?? {}, caller);
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: options.resources().map(({ text: _text, ...about }) => about),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const resource = options.resources().find((r) => r.uri === request.params.uri);
    if (!resource) throw new McpError(ErrorCode.InvalidParams, `No resource at ${request.params.uri}.`);
    return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: resource.text() }] };
  });
  return server;
}

/**
 * express gives a request and a response the prototypes of its own (app.request, app.response) on the
 * paths it routes, which drops the methods light-my-request's objects read the body and capture the
 * answer with; copied onto the objects themselves, they outlive the switch. (Handing light-my-request
 * the express app instead makes it re-parent express's prototypes for every request, real ones too.)
 */
function inProcess(dispatch: McpOptions['dispatch']): McpOptions['dispatch'] {
  return (req, res) => {
    keepOwnMethods(req);
    keepOwnMethods(res);
    dispatch(req, res);
  };
}

function keepOwnMethods(target: object): void {
  const proto = Object.getPrototypeOf(target) as object;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    if (name === 'constructor' || typeof descriptor?.value !== 'function' || Object.hasOwn(target, name))
      continue;
    Object.defineProperty(target, name, { value: descriptor.value, writable: true, configurable: true });
  }
}

/** The REST request a tool call stands for, or the argument it cannot place. */
function restRequest(
  tool: McpTool,
  args: Record<string, unknown>,
): { url: string; headers: Record<string, string> } {
  let path = tool.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  const known = new Set(tool.arguments.map((a) => a.name));
  for (const arg of tool.arguments) {
    const value = args[arg.name];
    if (value === undefined || value === null) {
      if (arg.required) throw ApiError.invalid(arg.name, `${arg.name} is required.`);
      continue;
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw ApiError.invalid(arg.name, `${arg.name} must be a string, a number or a boolean.`);
    }
    if (arg.in === 'path') path = path.replace(`{${arg.parameter}}`, encodeURIComponent(String(value)));
    else if (arg.in === 'header') headers[arg.parameter.toLowerCase()] = String(value);
    else query.append(arg.parameter, String(value));
  }
  // Any other argument goes to the query, where the REST path refuses it by name as it refuses a stray
  // parameter: one rule, one message.
  for (const [name, value] of Object.entries(args)) {
    if (known.has(name) || (name === 'body' && tool.body)) continue;
    query.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  const search = query.toString();
  return { url: search ? `${path}?${search}` : path, headers };
}

async function callTool(
  options: McpOptions,
  tool: McpTool,
  args: Record<string, unknown>,
  caller: Caller,
): Promise<CallToolResult> {
  let request: { url: string; headers: Record<string, string> };
  try {
    request = restRequest(tool, args);
  } catch (error) {
    const envelope = errorEnvelope(error as ApiError, caller.requestId, options.docsUrl);
    return {
      isError: true,
      content: [{ type: 'text', text: JSON.stringify(envelope) }],
      structuredContent: { ...envelope },
    };
  }
  const headers: Record<string, string> = {
    ...request.headers,
    accept: 'application/json',
    'x-request-id': caller.requestId,
    ...(caller.host === undefined ? {} : { host: caller.host }),
    ...(caller.authorization === undefined ? {} : { authorization: caller.authorization }),
  };
  const hasBody = tool.body && args.body !== undefined;
  if (hasBody) headers['content-type'] = 'application/json';
  const answer = await inject(inProcess(options.dispatch), {
    method: tool.method,
    url: request.url,
    headers,
    remoteAddress: caller.address,
    ...(hasBody ? { payload: JSON.stringify(args.body) } : {}),
  });
  const text = answer.body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const structured =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  return {
    ...(answer.statusCode >= 400 ? { isError: true } : {}),
    content: [{ type: 'text', text }],
    ...(structured ? { structuredContent: structured } : {}),
  };
}
