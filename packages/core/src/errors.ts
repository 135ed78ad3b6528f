/**
 * The one error hierarchy of every service. Domain code throws these; `toProblem` turns them
 * into RFC 9457 problem+json in exactly one place (the app factory's error handler).
 */
export interface FieldError {
  path: string;
  message: string;
  code: string;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;

  constructor(status: number, code: string, title: string, message: string, errors?: FieldError[], headers?: Record<string, string>) {
    // Expected conditions (4xx, upstream trouble) are not bugs: skipping the stack capture keeps
    // a flood of 401s or 429s cheap.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.title = title;
    this.errors = errors;
    this.headers = headers;
  }
}

export class ValidationError extends AppError {
  constructor(message: string, errors: FieldError[] = [], code = 'validation_error') {
    super(400, code, 'Validation failed', message, errors);
  }
}

export class MalformedRequestError extends AppError {
  constructor(message: string, code = 'malformed_request') {
    super(400, code, 'Malformed request', message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'A valid credential is required', code = 'unauthorized') {
    super(401, code, 'Unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer' });
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string, code = 'insufficient_scope', errors?: FieldError[]) {
    super(403, code, 'Forbidden', message, errors);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string, code = 'not_found') {
    super(404, code, 'Not found', message);
  }
}

export class NotAcceptableError extends AppError {
  constructor(message = 'This resource is available as application/json, text/json or text/plain') {
    super(406, 'not_acceptable', 'Not acceptable', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, code = 'conflict', errors?: FieldError[]) {
    super(409, code, 'Conflict', message, errors);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limit: number) {
    super(413, 'payload_too_large', 'Payload too large', `The request body exceeds ${limit} bytes`);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(type: string) {
    super(
      415,
      'unsupported_media_type',
      'Unsupported media type',
      `Content-Type ${type || '(none)'} is not accepted; send application/json`,
    );
  }
}

export class BusinessRuleError extends AppError {
  constructor(message: string, code = 'business_rule_violation', errors?: FieldError[]) {
    super(422, code, 'Business rule violated', message, errors);
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number, headers: Record<string, string>) {
    super(429, 'rate_limited', 'Too many requests', `Rate limit exceeded; retry in ${retryAfterSeconds} s`, undefined, {
      ...headers,
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

/**
 * A request refused before any work because the process is past its capacity (early load
 * shedding, decision 243): nothing was done, so it is sent again after Retry-After. The code is
 * the one clients already retry on.
 */
export class OverloadedError extends AppError {
  constructor(service: string) {
    super(503, 'service_unavailable', 'Service unavailable', `${service}: overloaded, nothing was done; send the request again after Retry-After`, undefined, {
      'Retry-After': '1',
      [OVERLOADED_HEADER]: '1',
    });
  }
}

/** Marks a service's early refusal, so a gateway in front of it lowers what it sends (decision 243). */
export const OVERLOADED_HEADER = 'x-ledgerline-overloaded';

export class UpstreamError extends AppError {
  constructor(status: 502 | 503 | 504, service: string, message: string) {
    const title = { 502: 'Bad gateway', 503: 'Service unavailable', 504: 'Gateway timeout' }[status];
    const code = { 502: 'upstream_error', 503: 'service_unavailable', 504: 'upstream_timeout' }[status];
    super(status, code, title, `${service}: ${message}`, undefined, { 'Retry-After': '1' });
  }
}

/**
 * The database connection went while a write was being committed: the server may have committed
 * it before the answer was lost, so this is not the "nothing happened, retry" of a 503. A request
 * sent with an Idempotency-Key can be sent again as it is (it is carried out at most once); one
 * without should be looked up before it is sent again.
 */
export class CommitOutcomeUnknownError extends AppError {
  constructor(withIdempotencyKey: boolean) {
    super(
      503,
      'commit_outcome_unknown',
      'Service unavailable',
      withIdempotencyKey
        ? 'The connection to the database was lost while the write was being committed, so it may or may not have been made; send the request again with the same Idempotency-Key, which answers it as made or makes it once'
        : 'The connection to the database was lost while the write was being committed, so it may or may not have been made; look it up before sending it again (with an Idempotency-Key a request can always be sent again safely)',
      undefined,
      { 'Retry-After': '1' },
    );
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  code: string;
  request_id?: string;
  errors?: FieldError[];
}

export function toProblem(err: AppError, instance?: string, requestId?: string): Problem {
  return {
    type: `/problems/${err.code.replace(/_/g, '-')}`,
    title: err.title,
    status: err.status,
    detail: err.message,
    instance,
    code: err.code,
    request_id: requestId,
    ...(err.errors && err.errors.length ? { errors: err.errors } : {}),
  };
}

export function internalProblem(instance?: string, requestId?: string): Problem {
  return {
    type: '/problems/internal-error',
    title: 'Internal server error',
    status: 500,
    detail: 'The server could not complete the request; it has been logged with the request id',
    instance,
    code: 'internal_error',
    request_id: requestId,
  };
}
