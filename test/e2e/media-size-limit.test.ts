// The upload limit on the running local stack (front server + serverless offline), through
// POST /api/v2/media as clients upload: the instance announces the limit, a file of exactly that
// size uploads with a full form around it, one byte more is refused by the function with 413
// JSON, and a body AWS could not carry is refused by the front server before any function.
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { MAX_BINARY_BODY_BYTES, MAX_UPLOAD_BYTES } from '../../lib/http/limits';
import { paddedJpeg } from '../support/padded-jpeg';
import { useStack } from '../support/stack';

const stack = useStack();
const REDIRECT = 'urn:ietf:wg:oauth:2.0:oob';

/** A new user's token, registered through the API as a client app does. */
async function userToken(): Promise<string> {
  const url = stack().baseUrl;
  const app = await createRestAPIClient({ url }).v1.apps.create({ clientName: 'e2e uploads', redirectUris: REDIRECT, scopes: 'read write' });
  const appToken = await createOAuthAPIClient({ url }).token.create({
    grantType: 'client_credentials',
    clientId: app.clientId!,
    clientSecret: app.clientSecret!,
    redirectUri: REDIRECT,
    scope: 'read write',
  });
  const username = `up${Date.now().toString(36)}`;
  const asApp = createRestAPIClient({ url, accessToken: appToken.accessToken });
  const token = await asApp.v1.accounts.create({ username, email: `${username}@example.com`, password: 'social passphrase 7', agreement: true, locale: 'en' });
  return token.accessToken;
}

const uploadForm = (file: Buffer, fields: Record<string, string> = {}) => {
  const form = new FormData();
  form.append('file', new Blob([file], { type: 'image/jpeg' }), 'edge.jpg');
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
};

// Mastodon's longest description, in two-byte characters: the form around the file at its largest.
const longDescription = 'é'.repeat(1500);

/** POST /api/v2/media with a file of `bytes` bytes, as a new user. */
const uploadOf = async (bytes: number, fields: Record<string, string> = {}) =>
  fetch(`${stack().baseUrl}/api/v2/media`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await userToken()}` },
    body: uploadForm(await paddedJpeg(bytes), fields),
  });

describe('uploads on the local stack', () => {
  it('announces the limit the deployed path carries on both instance endpoints', async () => {
    for (const path of ['/api/v1/instance', '/api/v2/instance']) {
      const res = await fetch(`${stack().baseUrl}${path}`);
      const body = (await res.json()) as { configuration: { media_attachments: Record<string, number> } };
      expect(body.configuration.media_attachments).toMatchObject({ image_size_limit: MAX_UPLOAD_BYTES, video_size_limit: MAX_UPLOAD_BYTES });
    }
  });

  it('takes an image of exactly the announced size through the masto client', async () => {
    const token = await userToken();
    const client = createRestAPIClient({ url: stack().baseUrl, accessToken: token });
    const file = await paddedJpeg(MAX_UPLOAD_BYTES);

    const media = await client.v2.media.create({ file: new Blob([file], { type: 'image/jpeg' }), description: longDescription });

    expect(media).toMatchObject({ type: 'image', description: longDescription, meta: { original: { width: 96, height: 64 } } });
    const stored = await fetch(media.url!);
    expect(stored.status).toBe(200);
    expect(stored.headers.get('content-type')).toBe('image/jpeg');
  });

  it('refuses an image one byte over it with 413 JSON from the function, writing nothing', async () => {
    const res = await uploadOf(MAX_UPLOAD_BYTES + 1, { description: longDescription });

    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    // The function's own message (the front server says "Request entity too large").
    expect(await res.json()).toEqual({ error: `File is too large: the limit is ${MAX_UPLOAD_BYTES} bytes, 4.3 MB` });
    expect(res.headers.get('x-db-writes')).toBe('0');
  });

  it('refuses at the front server a body larger than fits base64-encoded in a Lambda request, as AWS does', async () => {
    const res = await uploadOf(MAX_BINARY_BODY_BYTES);

    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'Request entity too large' });
  });
});
