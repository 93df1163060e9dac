// GET /admin/action_logs (Mastodon's admin/action_logs): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { pageRun } from '../../lib/admin_pages/access';
import { actionLogPage } from '../../lib/admin_pages/action_logs';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = pageRun('view_audit_log', () => '/action_logs', actionLogPage);

export const handler = http(run, { auth: 'public', schema });
