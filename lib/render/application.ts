// Application entity (https://docs.joinmastodon.org/entities/Application/).
import type { App } from '../db/apps';
import { secrets } from '../secrets';

export function renderApplication(app: App, opts: { clientSecret?: string } = {}) {
  return {
    id: app.id,
    name: app.name,
    website: app.website,
    scopes: app.scopes,
    redirect_uri: app.redirectUris.join('\n'),
    redirect_uris: app.redirectUris,
    ...(secrets().vapidPublicKey ? { vapid_key: secrets().vapidPublicKey } : {}),
    ...(opts.clientSecret ? { client_id: app.clientId, client_secret: opts.clientSecret } : {}),
  };
}
