// POST /admin/domain_allows (Mastodon's admin/domain_allows create and destroy): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { formRun } from '../../lib/admin_pages/access';
import { submitDomainAllow } from '../../lib/admin_pages/domain_blocks';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = formRun('manage_federation', () => '/domain_allows', submitDomainAllow);

export const handler = http(run, { auth: 'public', schema });
