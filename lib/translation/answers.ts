// Reading what the service answered, the same for both services: its status as Mastodon maps it, its JSON.
import { jsonNestsDeeper } from '../schema';
import { quotaExceeded, tooManyRequests, unexpectedAnswer } from './errors';

/** A 2xx answer passes; the rest are the errors Mastodon maps them to (`quotaStatus`: the service's "quota spent"). */
export function checkStatus(status: number, quotaStatus: number): void {
  if (status === 429) throw tooManyRequests();
  if (status === quotaStatus) throw quotaExceeded();
  if (status < 200 || status > 299) throw unexpectedAnswer(`answered ${status}`);
}

/** The answer's JSON, or the unexpected-answer error. */
export function jsonAnswer(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (jsonNestsDeeper(text)) throw unexpectedAnswer('JSON nested too deep');
  try {
    return JSON.parse(text);
  } catch {
    throw unexpectedAnswer('not JSON');
  }
}
