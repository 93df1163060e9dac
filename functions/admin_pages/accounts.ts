// GET /admin/accounts (Mastodon's admin/accounts#index, by username): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { pageRun } from '../../lib/admin_pages/access';
import { accountSearch } from '../../lib/admin_pages/accounts';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = pageRun('manage_users', () => '/accounts', accountSearch);

export const handler = http(run, { auth: 'public', schema });
