/** The response objects every operation shares: headers, and the error envelope narrowed per status. */
import { ERROR_CODES, type ErrorCode } from '../../lib/errors.js';
import { ERROR_DOCS, type ErrorExample, errorEnvelope, type HeaderName } from '../schemas/common.js';
import type { JsonSchema, SchemaSet } from './schemaSet.js';

export const JSON_TYPE = 'application/json';
const EXAMPLE_REQUEST_ID = '3f2b8c1e-5d4a-4e6f-9b7a-1c2d3e4f5a6b';

export interface Response {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: JsonSchema; example?: unknown; examples?: Record<string, unknown> }>;
  $ref?: string;
}

const header = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT_HEADERS: HeaderName[] = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
];

export function responseHeaders(bucketed: boolean, extra: HeaderName[] = []): Record<string, unknown> {
  const names: HeaderName[] = ['X-Request-Id', ...(bucketed ? RATE_LIMIT_HEADERS : []), ...extra];
  return Object.fromEntries(names.map((n) => [n, header(n)]));
}

export function errorExample(
  code: ErrorCode,
  docsUrl: string,
  example: ErrorExample = ERROR_DOCS[code].example,
) {
  return {
    error: {
      code,
      message: example.message,
      requestId: EXAMPLE_REQUEST_ID,
      retryable: ERROR_CODES[code].retryable,
      documentation: `${docsUrl}/errors/${code}`,
      ...(example.parameter === undefined ? {} : { parameter: example.parameter }),
      ...(example.issues === undefined ? {} : { issues: example.issues }),
    },
  };
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  422: 'Unprocessable',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Service unavailable',
  504: 'Gateway timeout',
};

/** One error response: the envelope restricted to the codes the status carries on this operation. */
export function errorResponse(
  set: SchemaSet,
  status: number,
  codes: ErrorCode[],
  docsUrl: string,
  bucketed: boolean,
  examples: Partial<Record<ErrorCode, ErrorExample>> = {},
): Response {
  const lines = codes.map((c) => `- \`${c}\`: ${ERROR_DOCS[c].meaning} [More](${docsUrl}/errors/${c})`);
  const extra: HeaderName[] = status === 429 ? ['Retry-After'] : status === 405 ? ['Allow'] : [];
  // The shared Error component, with `error.code` narrowed to the codes this status carries here (no
  // `type` beside it and open objects: the envelope's own properties stay those of the component, which
  // alone refuses a property it does not name).
  const schema = {
    allOf: [
      set.ref(errorEnvelope),
      {
        additionalProperties: true,
        properties: { error: { additionalProperties: true, properties: { code: { enum: codes } } } },
      },
    ],
  };
  return {
    description: `${STATUS_TEXT[status] ?? 'Error'}. The error envelope; \`error.code\` is one of:\n\n${lines.join('\n')}`,
    headers: responseHeaders(bucketed, extra),
    content: {
      [JSON_TYPE]: {
        schema,
        examples: Object.fromEntries(
          codes.map((c) => [
            c,
            { summary: `${c}: ${ERROR_DOCS[c].title}`, value: errorExample(c, docsUrl, examples[c]) },
          ]),
        ),
      },
    },
  };
}

export function errorResponses(
  set: SchemaSet,
  codes: ErrorCode[],
  docsUrl: string,
  bucketed: boolean,
  examples: Partial<Record<ErrorCode, ErrorExample>> = {},
): Record<string, Response> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      String(status),
      errorResponse(set, status, list, docsUrl, bucketed, examples),
    ]),
  );
}
