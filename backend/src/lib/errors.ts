/**
 * Domain errors: what went wrong, in the domain's words, with a stable `code` the API answers with.
 * Services and repos throw these and know nothing of HTTP; `http/error-middleware.ts` alone decides
 * the status (`http/errors.ts` statusOf) and the body `{error, code, details?}`.
 */
export type ErrorKind =
  'invalid' | 'unauthenticated' | 'forbidden' | 'not_found' | 'conflict' | 'too_many' | 'misconfigured' | 'unavailable';

export abstract class DomainError extends Error {
  abstract readonly kind: ErrorKind;
  constructor(
    message: string,
    readonly code: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The input breaks a rule (a field's format, a limit, a state it must be in). */
export class Invalid extends DomainError {
  readonly kind = 'invalid';
  constructor(message: string, details?: Record<string, unknown>, code = 'bad_request') {
    super(message, code, details);
  }
}

/** No credentials, or credentials that do not name anyone. */
export class Unauthenticated extends DomainError {
  readonly kind = 'unauthenticated';
  constructor(message = 'Unauthorized', code = 'unauthorized') {
    super(message, code);
  }
}

/** Someone known who may not do this. */
export class Forbidden extends DomainError {
  readonly kind = 'forbidden';
  constructor(message = 'Forbidden', code = 'forbidden') {
    super(message, code);
  }
}

/** Nothing by that id, or nothing the caller may see (never says which). */
export class NotFound extends DomainError {
  readonly kind = 'not_found';
  constructor(message = 'Not found') {
    super(message, 'not_found');
  }
}

/** The change collides with what exists (a taken name, a stale state). */
export class Conflict extends DomainError {
  readonly kind = 'conflict';
  constructor(message: string, code = 'conflict') {
    super(message, code);
  }
}

/** Over a rate limit or a budget: worth trying again after `retryAfterSeconds`. */
export class TooMany extends DomainError {
  readonly kind = 'too_many';
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number, message = 'Too many requests') {
    super(message, 'rate_limited');
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  }
}

/** The server lacks a setting the operation needs (the operator's fault, not the caller's). */
export class Misconfigured extends DomainError {
  readonly kind = 'misconfigured';
  constructor(message: string, code = 'server_misconfigured') {
    super(message, code);
  }
}

/** Something this operation depends on cannot be used right now. */
export class Unavailable extends DomainError {
  readonly kind = 'unavailable';
  constructor(message: string, code = 'unavailable') {
    super(message, code);
  }
}
