// GET /admin/warning_presets/:id (Mastodon's admin/warning_presets#edit): a moderation page, HTML for a signed-in moderator's browser.
import { z } from 'zod';
import { pageRun, idPath } from '../../lib/admin_pages/access';
import { warningPresetPage } from '../../lib/admin_pages/warning_presets';
import { http } from '../../lib/http';

// The page's own module reads the fields it knows (ids, the form), and shows what it refuses on the page.
const schema = z.record(z.unknown());

export const run = pageRun('manage_settings', idPath('/warning_presets'), warningPresetPage);

export const handler = http(run, { auth: 'public', schema });
