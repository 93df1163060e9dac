// GET /admin/pending_accounts (Mastodon's admin/accounts?status=pending): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { pageRun } from '../../lib/admin_pages/access';
import { pendingPage } from '../../lib/admin_pages/pending';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = pageRun('manage_users', () => '/pending_accounts', pendingPage);

export const handler = http(run, { auth: 'public', schema });
