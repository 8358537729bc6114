/**
 * The MCP tools, derived from the published OpenAPI document: one tool per REST operation an agent
 * needs, named by its operationId, described by its summary and description, its input schema made of
 * its parameters and body. Nothing is described again here but which operations are tools and the
 * one sentence every prepare tool adds.
 */
import type { JsonSchema, OpenApiDocument } from '../contract/openapi.js';

/** Reads anyone may call; the catalogue's read buckets count them. */
const READS = [
  'getStats',
  'getChains',
  'getStrategies',
  'getStrategyDetail',
  'getStrategyActivity',
  'getMaker',
  'getMakerLeaderboard',
  'getQuote',
] as const;

/** Calls that need the caller's API key (Authorization: Bearer …), with its scopes and buckets. */
const KEYED = [
  'preparePosition',
  'preparePositionApprovals',
  'preparePositionDock',
  'rebalancePosition',
  'prepareSwap',
  'getPosition',
  'listPositions',
] as const;

export const TOOL_OPERATIONS: readonly string[] = [...READS, ...KEYED];

const UNSIGNED =
  'Nothing is signed, sent or moved: this returns unsigned transactions (and an EIP-5792 `calls` bundle) for the wallet itself to sign, so the tool is not destructive.';

export interface ToolArgument {
  /** The argument's name in the tool's input. */
  name: string;
  /** Where the REST call takes it. */
  in: 'path' | 'query' | 'header';
  /** The parameter's name on the REST call (a header's own spelling). */
  parameter: string;
  required: boolean;
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  /** The REST call the tool makes. */
  method: 'GET' | 'POST';
  path: string;
  arguments: ToolArgument[];
  /** The call takes a JSON body, given as the `body` argument. */
  body: boolean;
  keyed: boolean;
}

interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: JsonSchema;
  description?: string;
  example?: unknown;
}

interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  security?: unknown[];
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
}

/** `Idempotency-Key` → `idempotencyKey`. */
const argumentName = (header: string) =>
  header
    .split('-')
    .map((part, i) => (i === 0 ? part.toLowerCase() : part[0]!.toUpperCase() + part.slice(1).toLowerCase()))
    .join('');

/**
 * A schema with its `#/components/schemas/…` references copied in, so that it stands alone (an MCP
 * client has no components to resolve them against). The published schemas hold no cycles.
 */
function standalone(schema: unknown, components: Record<string, unknown>, depth = 0): unknown {
  if (depth > 32 || typeof schema !== 'object' || schema === null) return schema;
  if (Array.isArray(schema)) return schema.map((s) => standalone(s, components, depth + 1));
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    return standalone(components[ref.slice('#/components/schemas/'.length)], components, depth + 1);
  }
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, standalone(value, components, depth + 1)]),
  );
}

function toolOf(
  path: string,
  method: string,
  op: OpenApiOperation,
  components: Record<string, unknown>,
): McpTool {
  const keyed = (op.security ?? []).length > 0;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const args: ToolArgument[] = [];
  for (const p of op.parameters ?? []) {
    if (p.in !== 'path' && p.in !== 'query' && p.in !== 'header') continue;
    const name = p.in === 'header' ? argumentName(p.name) : p.name;
    properties[name] = {
      ...(standalone(p.schema ?? {}, components) as JsonSchema),
      ...(p.description === undefined ? {} : { description: p.description }),
      ...(p.example === undefined ? {} : { examples: [p.example] }),
    };
    const isRequired = p.required === true;
    if (isRequired) required.push(name);
    args.push({ name, in: p.in, parameter: p.name, required: isRequired });
  }
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  if (bodySchema) {
    properties.body = {
      ...(standalone(bodySchema, components) as JsonSchema),
      description: 'The JSON body.',
    };
    if (op.requestBody?.required) required.push('body');
  }
  const reads = method === 'get';
  const description = [op.summary, op.description ?? '', reads ? '' : UNSIGNED, toolAuth(keyed)]
    .filter((part) => part !== '')
    .join('\n\n');
  return {
    name: op.operationId,
    title: op.summary,
    description,
    inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}) },
    annotations: {
      title: op.summary,
      readOnlyHint: reads,
      // A prepared transaction is only a proposal: nothing is signed, sent or removed.
      destructiveHint: false,
      // Reads are; a prepare is only with the same Idempotency-Key, which the tool cannot promise.
      idempotentHint: reads,
      openWorldHint: false,
    },
    method: reads ? 'GET' : 'POST',
    path,
    arguments: args,
    body: bodySchema !== undefined,
    keyed,
  };
}

function toolAuth(keyed: boolean): string {
  return keyed
    ? 'Needs the API key in the Authorization header of the MCP request (Bearer), with the same scope and rate-limit bucket as the REST path; its errors carry the REST error code.'
    : '';
}

/** The tools, in TOOL_OPERATIONS order; an operation missing from the document is a startup error. */
export function mcpTools(document: OpenApiDocument): McpTool[] {
  // The builder's Operation type names only what every operation has; these fields are all present.
  const paths = document.paths as unknown as Record<string, Record<string, OpenApiOperation>>;
  const components: Record<string, unknown> = document.components.schemas;
  const byId = new Map<string, McpTool>();
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (TOOL_OPERATIONS.includes(op.operationId))
        byId.set(op.operationId, toolOf(path, method, op, components));
    }
  }
  return TOOL_OPERATIONS.map((id) => {
    const tool = byId.get(id);
    if (!tool) throw new Error(`mcp: the OpenAPI document has no operation ${id}`);
    return tool;
  });
}
