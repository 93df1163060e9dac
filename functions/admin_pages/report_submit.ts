// POST /admin/reports/:id (Mastodon's admin/reports resolve, reopen and admin/account_actions with a report): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { formRun, idPath } from '../../lib/admin_pages/access';
import { submitReport } from '../../lib/admin_pages/reports';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = formRun('manage_reports', idPath('/reports'), submitReport);

export const handler = http(run, { auth: 'public', schema });
