// POST /admin/trends/links (Mastodon's admin/trends/links approve and reject): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { formRun } from '../../lib/admin_pages/access';
import { submitTrend } from '../../lib/admin_pages/trends';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = formRun('manage_taxonomies', () => '/trends/links', submitTrend('links'));

export const handler = http(run, { auth: 'public', schema });
