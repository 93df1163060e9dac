// The stage's VAPID key pair (RFC 8292): the public key is the Application's
// `vapid_key` and the subscriptions' `server_key`, which browsers bind a push
// subscription to; the private key signs every push request. Generated once per
// stage and never rotated by the code, since rotating it orphans every
// subscription: an SSM parameter pair in AWS (created by infra/deploy/secrets.sh,
// read at run time by lib/secrets.ts), `<data dir>/vapid.json` on the local stack
// (infra/local/start.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import webpush from 'web-push';
import { z } from 'zod';
import { secrets } from '../secrets';

export type VapidKeys = { publicKey: string; privateKey: string };

const keyFile = z.object({ publicKey: z.string().min(1), privateKey: z.string().min(1) });

/** The configured pair, or undefined when the stage has none (push sending is then off). */
export function vapidKeys(): VapidKeys | undefined {
  const { vapidPublicKey: publicKey, vapidPrivateKey: privateKey } = secrets();
  return publicKey && privateKey ? { publicKey, privateKey } : undefined;
}

/**
 * Local stack: the pair from the environment when both halves are set, else the
 * one kept in `<dataDir>/vapid.json`, created (mode 0600) on the first start.
 */
export function localVapidKeys(env: Record<string, string | undefined>, dataDir: string): VapidKeys & { source: 'environment' | 'file' | 'created' } {
  if (env.VAPID_PUBLIC_KEY && env.VAPID_PRIVATE_KEY) return { publicKey: env.VAPID_PUBLIC_KEY, privateKey: env.VAPID_PRIVATE_KEY, source: 'environment' };
  const file = join(dataDir, 'vapid.json');
  if (existsSync(file)) return { ...keyFile.parse(JSON.parse(readFileSync(file, 'utf8'))), source: 'file' };
  const keys = webpush.generateVAPIDKeys();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify({ publicKey: keys.publicKey, privateKey: keys.privateKey }, null, 2)}\n`, { mode: 0o600 });
  return { publicKey: keys.publicKey, privateKey: keys.privateKey, source: 'created' };
}
