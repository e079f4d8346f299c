/**
 * The HTTP edge of errors. Domain errors (`lib/errors.ts`) get their status here, in one table;
 * `HttpError` is for what only the edge knows (a foreign Host, a body too large, a missing
 * WebSocket upgrade, an upstream that failed), thrown by middleware and routes, never by services.
 * The error middleware turns both into `{error, code, details?}`.
 */
import type { DomainError, ErrorKind } from '../lib/errors.js';

const STATUS_OF_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_many: 429,
  misconfigured: 500,
  unavailable: 503,
};

export function statusOf(error: DomainError): number {
  return STATUS_OF_KIND[error.kind];
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A request for a host this server does not answer to (RFC 9110 421). */
export class MisdirectedRequest extends HttpError {
  constructor(message: string) {
    super(421, message, 'misdirected_request');
  }
}

export class PayloadTooLarge extends HttpError {
  constructor(message = 'Request body too large') {
    super(413, message, 'payload_too_large');
  }
}
