// POST /admin/ip_blocks (Mastodon's admin/ip_blocks create and destroy): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { formRun } from '../../lib/admin_pages/access';
import { submitIpBlock } from '../../lib/admin_pages/sign_up_blocks';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = formRun('manage_blocks', () => '/ip_blocks', submitIpBlock);

export const handler = http(run, { auth: 'public', schema });
