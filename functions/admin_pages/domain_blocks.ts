// GET /admin/domain_blocks (Mastodon's admin/domain_blocks, on the instance's blocks): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { pageRun } from '../../lib/admin_pages/access';
import { domainBlocksPage } from '../../lib/admin_pages/domain_blocks';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = pageRun('manage_federation', () => '/domain_blocks', domainBlocksPage);

export const handler = http(run, { auth: 'public', schema });
