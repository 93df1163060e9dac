// GET /avatars/original/missing.png: the default avatar of accounts without one (as Mastodon serves it).
import { http, raw } from '../../lib/http';
import { DEFAULT_IMAGE_CACHE_CONTROL, defaultImage } from '../../lib/instance/images';

export async function run() {
  return raw(await defaultImage('avatar'), 'image/png', 200, { 'Cache-Control': DEFAULT_IMAGE_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
