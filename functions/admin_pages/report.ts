// GET /admin/reports/:id (Mastodon's admin/reports#show): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { pageRun, idPath } from '../../lib/admin_pages/access';
import { reportPage } from '../../lib/admin_pages/reports';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = pageRun('manage_reports', idPath('/reports'), reportPage);

export const handler = http(run, { auth: 'public', schema });
