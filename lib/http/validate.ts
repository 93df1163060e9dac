// Turns zod issues into Mastodon's "Validation failed: ..." text. The pieces schemas
// are built from (booleanish, ids, one-or-many, ...) are in lib/schema.ts.
import { ZodError, z } from 'zod';
import { unprocessable } from '../errors';

export function validationMessage(err: ZodError): string {
  const parts = err.issues.map((issue) => {
    const field = issue.path.join('.') || 'input';
    const message = issue.code === 'invalid_type' && issue.received === 'undefined' ? "can't be blank" : issue.message;
    return `${field} ${message}`;
  });
  return `Validation failed: ${[...new Set(parts)].join(', ')}`;
}

export function validate<S extends z.ZodTypeAny>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw unprocessable(validationMessage(result.error));
  return result.data;
}
