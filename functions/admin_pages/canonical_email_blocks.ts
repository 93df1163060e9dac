// GET /admin/canonical_email_blocks (Mastodon's canonical e-mail blocks): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { pageRun } from '../../lib/admin_pages/access';
import { canonicalEmailBlocksPageHtml } from '../../lib/admin_pages/sign_up_blocks';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = pageRun('manage_blocks', () => '/canonical_email_blocks', canonicalEmailBlocksPageHtml);

export const handler = http(run, { auth: 'public', schema });
