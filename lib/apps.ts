// OAuth applications: registration and client authentication.
import { z } from 'zod';
import { sha256, safeEqual } from './crypto';
import { appByClientId, createApp, type App } from './db/apps';
import { newId, secretToken } from './ids';
import { isKnownScope, parseScopes } from './http/scopes';
import { text } from './schema';

export const OOB_URI = 'urn:ietf:wg:oauth:2.0:oob';

/** A redirect URI Doorkeeper accepts: the out-of-band value, or an absolute URI without a fragment. */
export const isValidRedirectUri = (uri: string): boolean => {
  if (uri === OOB_URI) return true;
  try {
    const u = new URL(uri);
    return u.hash === '' && u.protocol !== 'javascript:' && u.protocol !== 'data:';
  } catch {
    return false;
  }
};

const redirectUris = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(/\s+/)).map((s) => s.trim()).filter(Boolean))
  .refine((list) => list.length > 0, "can't be blank")
  .refine((list) => list.length <= 10, 'has too many entries')
  .refine((list) => list.every((u) => u.length <= 2000 && isValidRedirectUri(u)), 'must be an absolute URI without a fragment');

export const createAppInput = z.object({
  client_name: text(60).refine((s) => s.trim().length > 0, "can't be blank"),
  redirect_uris: redirectUris,
  scopes: z.union([z.string(), z.array(z.string())]).optional()
    .transform((v) => parseScopes(v))
    .refine((list) => list.every(isKnownScope), 'are invalid'),
  website: text(2000).optional().nullable()
    .transform((v) => (v && v.trim() !== '' ? v.trim() : null))
    .refine((v) => v === null || /^https?:\/\/[^\s]+$/i.test(v), 'is not a valid URL'),
});

export async function registerApp(input: z.infer<typeof createAppInput>): Promise<{ app: App; clientSecret: string }> {
  const clientSecret = secretToken();
  const app: App = {
    id: newId(),
    clientId: secretToken(),
    clientSecretHash: sha256(clientSecret),
    name: input.client_name.trim(),
    website: input.website,
    redirectUris: input.redirect_uris,
    scopes: input.scopes,
    createdAt: new Date().toISOString(),
  };
  await createApp(app);
  return { app, clientSecret };
}

/** The application whose client credentials these are, or undefined. */
export async function authenticateClient(clientId: unknown, clientSecret: unknown): Promise<App | undefined> {
  if (typeof clientId !== 'string' || typeof clientSecret !== 'string' || clientId.length > 200) return undefined;
  const app = await appByClientId(clientId);
  if (!app || !safeEqual(app.clientSecretHash, sha256(clientSecret))) return undefined;
  return app;
}
