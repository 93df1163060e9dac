// Renders a timeline page as Mastodon answers it: an array of Status, with the Link header.
import type { Account } from '../db/accounts';
import { json, type Reply } from '../http';
import { linkHeader } from '../http/link';
import { renderStatuses } from '../render/status';
import type { TimelinePage } from './read';

const linkParams = (query: Record<string, unknown>): Record<string, string | string[] | undefined> => {
  const out: Record<string, string | string[] | undefined> = {};
  for (const [k, v] of Object.entries(query)) {
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v)) out[k] = v.filter((one): one is string => typeof one === 'string');
  }
  return out;
};

export async function timelineReply(page: TimelinePage, viewer: Account | undefined, path: string, query: Record<string, unknown>): Promise<Reply> {
  const body = await renderStatuses(page.statuses, viewer);
  const link = linkHeader(path, linkParams(query), { newest: page.newest, oldest: page.oldest });
  return json(body, 200, link ? { Link: link } : {});
}
