/**
 * The one error type of the service. Every failure a client can see is an ApiError with a code of
 * SPEC §7; the REST envelope and the GraphQL `extensions` are both derived from it.
 */
export const ERROR_CODES = {
  BAD_REQUEST: { status: 400, retryable: false },
  INVALID_PARAMETER: { status: 400, retryable: false },
  UNAUTHORIZED: { status: 401, retryable: false },
  FORBIDDEN: { status: 403, retryable: false },
  NOT_FOUND: { status: 404, retryable: false },
  METHOD_NOT_ALLOWED: { status: 405, retryable: false },
  UNSUPPORTED_CHAIN: { status: 422, retryable: false },
  UNPROCESSABLE: { status: 422, retryable: false },
  RATE_LIMITED: { status: 429, retryable: true },
  INTERNAL: { status: 500, retryable: true },
  UPSTREAM_UNAVAILABLE: { status: 503, retryable: true },
  UPSTREAM_TIMEOUT: { status: 504, retryable: true },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[];

/** A client-fixable problem (SPEC §7 rule 2). */
export interface ErrorIssue {
  type: string;
  expected?: string;
  actual?: string;
  spender?: string;
  /** The step of a prepared bundle at fault (1-based, as `transactions[].step`), and what it does. */
  step?: number;
  purpose?: string;
}

export interface ApiErrorOptions {
  /** The request parameter (query, path, header or body field) at fault, when there is one. */
  parameter?: string;
  issues?: ErrorIssue[];
  /** Seconds, for RATE_LIMITED. */
  retryAfter?: number;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly parameter: string | undefined;
  readonly issues: ErrorIssue[] | undefined;
  readonly retryAfter: number | undefined;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.retryable = ERROR_CODES[code].retryable;
    this.parameter = options.parameter;
    this.issues = options.issues;
    this.retryAfter = options.retryAfter;
  }

  /** 400 INVALID_PARAMETER naming the parameter. */
  static invalid(parameter: string, message: string): ApiError {
    return new ApiError('INVALID_PARAMETER', message, { parameter });
  }

  /** 404 NOT_FOUND; naming the parameter whose value was not found, when one was. */
  static notFound(message = 'No such resource.', parameter?: string): ApiError {
    return new ApiError('NOT_FOUND', message, parameter === undefined ? {} : { parameter });
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/**
 * `error` naming its parameter as the caller called it: one layer's names for the same parameters
 * (`names`: the name inside → the caller's) in `parameter` and in the message. Anything else unchanged.
 */
export function withParameterNames(error: unknown, names: Readonly<Record<string, string>>): unknown {
  const renamed = isApiError(error) && error.parameter ? names[error.parameter] : undefined;
  if (!isApiError(error) || !error.parameter || !renamed) return error;
  return ApiError.invalid(
    renamed,
    error.message.replace(new RegExp(`\\b${error.parameter}\\b`, 'g'), renamed),
  );
}

/** The extensions an ApiError carries through GraphQL, and how to read them back. */
export interface ApiErrorExtensions {
  [key: string]: unknown;
  code: ErrorCode;
  http: { status: number };
  retryable: boolean;
  parameter?: string;
  issues?: ErrorIssue[];
}

export function toExtensions(error: ApiError): ApiErrorExtensions {
  return {
    code: error.code,
    http: { status: error.status },
    retryable: error.retryable,
    ...(error.parameter === undefined ? {} : { parameter: error.parameter }),
    ...(error.issues === undefined ? {} : { issues: error.issues }),
  };
}

export function fromExtensions(
  message: string,
  extensions: Record<string, unknown> | undefined,
): ApiError | null {
  const code = extensions?.code;
  if (typeof code !== 'string' || !(code in ERROR_CODES)) return null;
  const options: ApiErrorOptions = {};
  if (typeof extensions?.parameter === 'string') options.parameter = extensions.parameter;
  if (Array.isArray(extensions?.issues)) options.issues = extensions.issues as ErrorIssue[];
  return new ApiError(code as ErrorCode, message, options);
}
