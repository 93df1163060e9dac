// POST /admin/accounts/:id (Mastodon's admin/account_actions and the enable, unsilence, unsuspend, unsensitive actions): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { formRun, idPath } from '../../lib/admin_pages/access';
import { submitAccount } from '../../lib/admin_pages/accounts';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = formRun('manage_users', idPath('/accounts'), submitAccount);

export const handler = http(run, { auth: 'public', schema });
