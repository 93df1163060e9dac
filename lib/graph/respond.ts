// An account list page as Mastodon answers it: an array of Account, with the Link header.
import { json, type Ctx, type Reply } from '../http';
import { linkHeader } from '../http/link';
import { renderAccount } from '../render/account';
import type { AccountPage } from './lists';

const linkParams = (query: Record<string, unknown>): Record<string, string | string[] | undefined> => {
  const out: Record<string, string | string[] | undefined> = {};
  for (const [k, v] of Object.entries(query)) if (typeof v === 'string') out[k] = v;
  return out;
};

export function accountsReply(page: AccountPage, ctx: Pick<Ctx, 'path' | 'query'>): Reply {
  const link = linkHeader(ctx.path, linkParams(ctx.query), { newest: page.newest, oldest: page.oldest });
  return json(page.accounts.map((a) => renderAccount(a)), 200, link ? { Link: link } : {});
}
