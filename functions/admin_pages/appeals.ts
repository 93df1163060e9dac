// GET /admin/disputes/appeals (Mastodon's admin/disputes/appeals#index): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { pageRun } from '../../lib/admin_pages/access';
import { appealsPage } from '../../lib/admin_pages/appeals';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = pageRun('manage_appeals', () => '/disputes/appeals', appealsPage);

export const handler = http(run, { auth: 'public', schema });
