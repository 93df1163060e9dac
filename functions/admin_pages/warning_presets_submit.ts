// POST /admin/warning_presets (Mastodon's admin/warning_presets create and destroy): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { formRun } from '../../lib/admin_pages/access';
import { submitWarningPresets } from '../../lib/admin_pages/warning_presets';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = formRun('manage_settings', () => '/warning_presets', submitWarningPresets);

export const handler = http(run, { auth: 'public', schema });
