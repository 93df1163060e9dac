// Turns zod issues into Mastodon's "Validation failed: ..." text.
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

/** Form values arrive as strings: accept Mastodon's spellings of true and false. */
export const booleanish = z.preprocess((v) => {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (['true', '1', 'on', 't', 'yes'].includes(s)) return true;
    if (['false', '0', 'off', 'f', 'no', ''].includes(s)) return false;
  }
  return v;
}, z.boolean({ invalid_type_error: 'must be a boolean' }));

/** A bounded string field. */
export const text = (max: number) => z.string({ invalid_type_error: 'must be a string' }).max(max, `is too long (maximum is ${max} characters)`);
