// Every failure a handler can produce, carrying its HTTP status and the
// `{"error": ...}` text clients expect. The HTTP stack renders them in one place.
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'The access token is invalid') => new HttpError(401, message);
export const forbidden = (message = 'This action is not allowed') => new HttpError(403, message);
export const notFound = (message = 'Record not found') => new HttpError(404, message);
export const unprocessable = (message: string, details?: Record<string, unknown>) =>
  new HttpError(422, message, details ? { details } : {});
export const tooLarge = (message = 'Request entity too large') => new HttpError(413, message);
export const unsupportedMediaType = (message = 'Unsupported content type') => new HttpError(415, message);

export const outsideScopes = () => new HttpError(403, 'This action is outside the authorized scopes');
export const requiresUser = () => new HttpError(422, 'This method requires an authenticated user');
export const requiresAuth = () => new HttpError(401, 'This API requires an authenticated user');
export const accountDisabled = () => new HttpError(403, 'Your login is currently disabled');
export const emailUnconfirmed = () => new HttpError(403, 'Your login is missing a confirmed e-mail address');
export const accountPending = () => new HttpError(403, 'Your login is currently pending approval');

/** OAuth endpoints answer with RFC 6749 error codes, as Doorkeeper does for Mastodon. */
export const oauthError = (status: number, error: string, description: string) =>
  new HttpError(status, error, { error_description: description });

/**
 * A write refused before it was sent: the item would be over DynamoDB's 400 KB item limit (lib/db/item_size.ts).
 * Permanent: the same write fails the same way however often it is retried, so workers drop the message (the
 * inbox worker refuses the activity) and the HTTP stack answers 422.
 */
export class ItemTooLarge extends Error {
  constructor(
    readonly key: string,
    readonly bytes: number,
  ) {
    super(`item ${key} would be ${bytes} bytes, over DynamoDB's item limit`);
    this.name = 'ItemTooLarge';
  }
}
