// GET /admin/accounts/:id (Mastodon's admin/accounts#show): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { pageRun, idPath } from '../../lib/admin_pages/access';
import { accountPage } from '../../lib/admin_pages/accounts';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = pageRun('manage_users', idPath('/accounts'), accountPage);

export const handler = http(run, { auth: 'public', schema });
