import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { fieldOrderProblems } from './openapi/fieldOrder.js';
import type { JsonSchema, OpenApiDocument, Operation } from './openapi.js';

/**
 * Validates HTTP responses (status, headers, JSON body) and the document's own examples against the
 * OpenAPI document with ajv (JSON Schema 2020-12). Used by the e2e suites (test/helpers/contract.ts)
 * and by `npm run openapi:check`; the service itself never loads it.
 *
 * `strict` (the default) also refuses properties the document does not name, even where the
 * published schema allows them (SPEC §9: clients must ignore additions), so that a body which grows
 * a field without documenting it fails a test instead of drifting silently, and bodies that do not keep
 * the document's field order.
 */

// ajv-formats is CommonJS; under NodeNext its default export is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

const ROOT = 'openapi.json';

export interface ResponseLike {
  status: number;
  headers: { get(name: string): string | null };
}

function pointer(parts: string[]): string {
  return `#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

/** Every object schema that names its properties refuses others (records keep their value schema). */
export function strictify<T>(node: T): T {
  if (Array.isArray(node)) return node.map(strictify) as T;
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = strictify(value);
  const extra = out.additionalProperties;
  const open =
    extra === undefined ||
    extra === true ||
    (typeof extra === 'object' && extra !== null && Object.keys(extra).length === 0);
  if (out.type === 'object' && typeof out.properties === 'object' && open) out.additionalProperties = false;
  return out as T;
}

export class OpenApiValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly document: OpenApiDocument;
  private readonly templates: { regex: RegExp; template: string }[];
  /** Also checks that bodies keep the document's field order (contract/openapi/fieldOrder.ts). */
  private readonly strict: boolean;

  constructor(document: OpenApiDocument, options: { strict?: boolean } = {}) {
    const strict = options.strict ?? true;
    this.strict = strict;
    this.document = strict ? strictify(structuredClone(document)) : structuredClone(document);
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema(this.document as unknown as object, ROOT);
    this.templates = Object.keys(this.document.paths).map((template) => ({
      template,
      regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  /** The path template of the document that a concrete path (query string allowed) falls under. */
  template(path: string): string | null {
    const bare = path.split('?')[0]!;
    return this.templates.find((t) => t.regex.test(bare))?.template ?? null;
  }

  private validator(ref: string): ValidateFunction {
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${ROOT}${ref}` });
      this.compiled.set(ref, validate);
    }
    return validate;
  }

  /** Problems of `value` against the schema at `ref` (a JSON pointer into the document). */
  check(ref: string, value: unknown, what: string): string[] {
    const validate = this.validator(ref);
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) =>
        `${what}: ${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${
          e.keyword === 'additionalProperties'
            ? ` (undocumented: ${String((e.params as { additionalProperty?: unknown }).additionalProperty)})`
            : e.keyword === 'enum'
              ? ` (${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)})`
              : ''
        }`,
    );
  }

  operation(method: string, path: string): { template: string; op: Operation } | null {
    const template = this.template(path);
    const op = template ? this.document.paths[template]?.[method.toLowerCase()] : undefined;
    return template && op ? { template, op } : null;
  }

  /** Every way a response departs from the document: status, content type, headers and body. */
  responseProblems(method: string, path: string, res: ResponseLike, body: unknown): string[] {
    const m = method.toUpperCase() === 'HEAD' ? 'get' : method.toLowerCase();
    // A method the path does not serve: its 405 is documented on the path's operations.
    const template405 = res.status === 405 ? this.template(path) : null;
    const served = template405 ? Object.keys(this.document.paths[template405] ?? {})[0] : undefined;
    const found = this.operation(m, path) ?? (served ? this.operation(served, path) : null);
    const label = `${method.toUpperCase()} ${path} → ${res.status}`;
    if (!found) return [`${label}: no operation ${method.toUpperCase()} ${path} in the document`];
    const { template, op } = found;
    const opMethod = this.document.paths[template]?.[m] ? m : served!;
    const status = String(res.status);
    const response = op.responses[status];
    if (!response) {
      return [
        `${label}: status ${status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`,
      ];
    }
    const base = ['paths', template, opMethod, 'responses', status];
    const problems: string[] = [];

    for (const [name, value] of Object.entries(response.headers ?? {})) {
      const ref = (value as { $ref?: string }).$ref;
      const headerPath = ref ? ref.slice(2).split('/') : [...base, 'headers', name];
      const header = (ref ? this.resolve(ref) : value) as { required?: boolean; schema?: JsonSchema };
      const actual = res.headers.get(name);
      if (actual === null) {
        if (header.required) problems.push(`${label}: header ${name} is missing`);
        continue;
      }
      if (!header.schema) continue;
      const type = (this.resolveSchema(header.schema) as { type?: unknown }).type;
      const parsed =
        type === 'integer' || type === 'number'
          ? /^-?\d+(\.\d+)?$/.test(actual)
            ? Number(actual)
            : actual
          : actual;
      problems.push(...this.check(pointer([...headerPath, 'schema']), parsed, `${label}: header ${name}`));
    }

    const content = response.content?.['application/json'];
    if (content && method.toUpperCase() !== 'HEAD') {
      const type = res.headers.get('content-type') ?? '';
      if (!/^application\/json\b/i.test(type))
        problems.push(`${label}: content-type ${type || '(none)'}, not JSON`);
      const schema = pointer([...base, 'content', 'application/json', 'schema']);
      const shape = this.check(schema, body, `${label}: body`);
      problems.push(...shape);
      if (shape.length === 0 && this.strict) {
        const resolve = (s: JsonSchema) => this.resolveSchema(s);
        problems.push(
          ...fieldOrderProblems(resolve, this.resolve(schema) as JsonSchema, body, `${label}: body`),
        );
      }
    }
    return problems;
  }

  private resolve(ref: string): unknown {
    let node: unknown = this.document;
    for (const part of ref.slice(2).split('/')) {
      node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    return node;
  }

  private resolveSchema(schema: JsonSchema): JsonSchema {
    const ref = schema.$ref;
    return typeof ref === 'string' && ref.startsWith('#/')
      ? this.resolveSchema(this.resolve(ref) as JsonSchema)
      : schema;
  }

  /** Every example of the document (responses, error envelopes, request bodies, parameters) checked. */
  exampleProblems(): string[] {
    const problems: string[] = [];
    for (const [template, item] of Object.entries(this.document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const at = `${method.toUpperCase()} ${template}`;
        for (const [status, response] of Object.entries(op.responses)) {
          const content = response.content?.['application/json'];
          if (!content) continue;
          const schema = pointer([
            'paths',
            template,
            method,
            'responses',
            status,
            'content',
            'application/json',
            'schema',
          ]);
          if (content.example !== undefined)
            problems.push(...this.check(schema, content.example, `${at} ${status} example`));
          for (const [name, example] of Object.entries(content.examples ?? {})) {
            problems.push(
              ...this.check(schema, (example as { value: unknown }).value, `${at} ${status} example ${name}`),
            );
          }
        }
        const body = (op.requestBody as { content?: Record<string, { example?: unknown }> } | undefined)
          ?.content?.['application/json'];
        if (body?.example !== undefined) {
          const schema = pointer([
            'paths',
            template,
            method,
            'requestBody',
            'content',
            'application/json',
            'schema',
          ]);
          problems.push(...this.check(schema, body.example, `${at} request body example`));
        }
        const parameters = (op.parameters ?? []) as { name: string; example?: unknown }[];
        parameters.forEach((parameter, i) => {
          if (parameter.example === undefined) return;
          const schema = pointer(['paths', template, method, 'parameters', String(i), 'schema']);
          problems.push(
            ...this.check(schema, parameter.example, `${at} parameter ${parameter.name} example`),
          );
        });
      }
    }
    return problems;
  }
}

/** The examples of a document that do not match their schemas (strictly). */
export function exampleProblems(document: OpenApiDocument): string[] {
  return new OpenApiValidator(document).exampleProblems();
}
