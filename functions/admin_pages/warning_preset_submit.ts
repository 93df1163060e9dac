// POST /admin/warning_presets/:id (Mastodon's admin/warning_presets#update): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { formRun, idPath } from '../../lib/admin_pages/access';
import { submitWarningPreset } from '../../lib/admin_pages/warning_presets';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = formRun('manage_settings', idPath('/warning_presets'), submitWarningPreset);

export const handler = http(run, { auth: 'public', schema });
