// What the page modules share: an id from the path, and an HttpError of lib/moderation turned into a page.
import { HttpError } from '../errors';
import { isId } from '../ids';
import type { Reply } from '../http/reply';
import { messagePage, type Viewer } from './layout';

/** A path or form id in its canonical form (no leading zeros), or undefined when it is not one. */
export const canonicalId = (value: unknown): string | undefined =>
  typeof value === 'string' && isId(value) ? BigInt(value).toString() : undefined;

export const notFoundPage = (viewer: Viewer, what: string, back: string): Reply => messagePage(viewer, 404, 'Not found', `${what} does not exist.`, back);

/** Runs a moderation step; a refusal it throws (403 outranked, 404, 422) becomes a page with its status and text. */
export async function asPage(viewer: Viewer, back: string, step: () => Promise<Reply>): Promise<Reply> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof HttpError && err.status < 500) {
      const title = err.status === 403 ? 'Not allowed' : err.status === 404 ? 'Not found' : 'Not done';
      return messagePage(viewer, err.status, title, err.status === 403 ? 'You may not take this action on this account: it is your own, or its role is not below yours.' : err.message, back);
    }
    throw err;
  }
}
