// Collects rule violations so that every broken rule is reported at once, in
// Rails' words: "Validation failed: Username has already been taken, ..." and,
// where Mastodon sends them (registration), per-attribute details with ERR_ codes.
import { unprocessable, type HttpError } from '../errors';

export type ErrorCode =
  | 'ERR_BLANK'
  | 'ERR_INVALID'
  | 'ERR_TOO_LONG'
  | 'ERR_TOO_SHORT'
  | 'ERR_TAKEN'
  | 'ERR_RESERVED'
  | 'ERR_ACCEPTED'
  | 'ERR_INCLUSION'
  | 'ERR_BLOCKED';

type Violation = { attribute: string; label: string; code: ErrorCode; description: string };

export const describe = {
  blank: "can't be blank",
  invalid: 'is invalid',
  taken: 'has already been taken',
  reserved: 'is reserved',
  accepted: 'must be accepted',
  inclusion: 'is not included in the list',
  blocked: 'uses a disallowed e-mail provider',
  tooLong: (max: number) => `is too long (maximum is ${max} characters)`,
  tooShort: (min: number) => `is too short (minimum is ${min} characters)`,
};

export class Violations {
  private readonly list: Violation[] = [];

  /** `attribute` is the request parameter (details key); `label` the human name in the message. */
  add(attribute: string, label: string, code: ErrorCode, description: string): this {
    this.list.push({ attribute, label, code, description });
    return this;
  }

  has(attribute: string): boolean {
    return this.list.some((v) => v.attribute === attribute);
  }

  get empty(): boolean {
    return this.list.length === 0;
  }

  get message(): string {
    return `Validation failed: ${this.list.map((v) => `${v.label} ${v.description}`).join(', ')}`;
  }

  get details(): Record<string, { error: ErrorCode; description: string }[]> {
    const out: Record<string, { error: ErrorCode; description: string }[]> = {};
    for (const v of this.list) (out[v.attribute] ??= []).push({ error: v.code, description: v.description });
    return out;
  }

  /** The 422 to throw; with details as POST /api/v1/accounts answers them. */
  error(opts: { details?: boolean } = {}): HttpError {
    return unprocessable(this.message, opts.details ? this.details : undefined);
  }

  /** Throws when any rule broke. */
  check(opts: { details?: boolean } = {}): void {
    if (!this.empty) throw this.error(opts);
  }
}

/** Characters as Ruby counts them (code points), not UTF-16 units. */
export const charLength = (s: string): number => [...s].length;
