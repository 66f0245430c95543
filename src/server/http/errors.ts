// Errors the API answers with: a status code, a stable code for scripts and a
// message a person can act on. Anything else that escapes a handler is a bug,
// logged with its stack and answered 500 without one.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new ApiError(400, 'bad_request', message, details);
export const notFound = (message: string, details?: Record<string, unknown>) =>
  new ApiError(404, 'not_found', message, details);
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new ApiError(409, 'conflict', message, details);
