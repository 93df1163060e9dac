// POST /admin/disputes/appeals (Mastodon's admin/disputes/appeals approve and reject): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { formRun } from '../../lib/admin_pages/access';
import { submitAppeal } from '../../lib/admin_pages/appeals';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = formRun('manage_appeals', () => '/disputes/appeals', submitAppeal);

export const handler = http(run, { auth: 'public', schema });
