// GET /admin/email_domain_blocks (Mastodon's admin/email_domain_blocks): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { pageRun } from '../../lib/admin_pages/access';
import { emailDomainBlocksPageHtml } from '../../lib/admin_pages/sign_up_blocks';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = pageRun('manage_blocks', () => '/email_domain_blocks', emailDomainBlocksPageHtml);

export const handler = http(run, { auth: 'public', schema });
