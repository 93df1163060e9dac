// GET /about: the server's about page (Instance `configuration.urls.about`): title, descriptions, rules, contact.
import { http } from '../../lib/http';
import { recentInstanceSettings } from '../../lib/db/instance';
import { aboutPage } from '../../lib/instance/pages';

export async function run() {
  return aboutPage(await recentInstanceSettings());
}

export const handler = http(run, { auth: 'public' });
