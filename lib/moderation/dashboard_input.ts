// The input the dashboard endpoints share (POST /api/v1/admin/measures, /dimensions, /retention): a period of
// whole UTC days, and the keys asked, each refused by name when unknown (422).
import { z } from 'zod';
import { unprocessable } from '../errors';
import { oneOrMany } from '../schema';
import { DIMENSION_KEYS, MAX_PERIOD_DAYS, MEASURE_KEYS, daysOf, type Period } from './dashboard';

/** A date (YYYY-MM-DD) or a time (ISO 8601) whose UTC day is taken, as Mastodon's `to_date`. */
const dateField = z
  .string({ required_error: "can't be blank", invalid_type_error: 'must be a date' })
  .trim()
  .refine((v) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)), 'must be a date')
  .transform((v) => new Date(Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v)).toISOString().slice(0, 10));

export const periodFields = { start_at: dateField, end_at: dateField };

/** The period, checked: its end not before its start, and at most MAX_PERIOD_DAYS long. */
export function periodOf(input: { start_at: string; end_at: string }): Period {
  if (input.end_at < input.start_at) throw unprocessable('Validation failed: end_at must not be before start_at');
  const period = { start: input.start_at, end: input.end_at };
  if (daysOf(period).length > MAX_PERIOD_DAYS) throw unprocessable(`Validation failed: end_at must be at most ${MAX_PERIOD_DAYS} days after start_at`);
  return period;
}

const keyList = <K extends string>(known: readonly K[]) =>
  oneOrMany(z.array(z.string({ invalid_type_error: 'must be a key' })).min(1, "can't be blank").max(known.length * 2, 'has too many keys')).transform(
    (keys, ctx) => {
      const unknown = keys.filter((k) => !(known as readonly string[]).includes(k));
      if (unknown.length > 0) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `has unknown keys: ${unknown.join(', ')}` });
        return z.NEVER;
      }
      return [...new Set(keys)] as K[];
    },
  );

export const measureKeys = keyList(MEASURE_KEYS);
export const dimensionKeys = keyList(DIMENSION_KEYS);

/** A key's own parameters (`tag_uses[id]`, `instance_accounts[domain]`), as Rails nests them. */
export const keyParams = z
  .object({ id: z.union([z.string(), z.number()]).transform(String).optional(), domain: z.string().optional() })
  .passthrough()
  .optional();
