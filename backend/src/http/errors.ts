/**
 * The error classes routes throw. The error middleware turns them into
 * `{error, code, details?}` with their status; anything else is a generic 500
 * of the same shape (the real cause goes to the log, never to the client).
 */
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

export class BadRequest extends HttpError {
  constructor(message: string, details?: Record<string, unknown>, code = 'bad_request') {
    super(400, message, code, details);
  }
}

export class Unauthorized extends HttpError {
  constructor(message = 'Unauthorized', code = 'unauthorized') {
    super(401, message, code);
  }
}

export class Forbidden extends HttpError {
  constructor(message = 'Forbidden', code = 'forbidden') {
    super(403, message, code);
  }
}

export class NotFound extends HttpError {
  constructor(message = 'Not found') {
    super(404, message, 'not_found');
  }
}

export class Conflict extends HttpError {
  constructor(message: string, code = 'conflict') {
    super(409, message, code);
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

export class TooManyRequests extends HttpError {
  constructor(retryAfterSeconds: number, message = 'Too many requests') {
    super(429, message, 'rate_limited', undefined, {
      'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    });
  }
}

export class ServiceUnavailable extends HttpError {
  constructor(message: string) {
    super(503, message, 'unavailable');
  }
}
