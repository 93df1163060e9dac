// The stage's secrets: SECRET_KEY_BASE (signs the login form's CSRF token, seals
// the access tokens push payloads carry) and the Web Push (VAPID) key pair.
//
// Deployed stages keep them in SSM Parameter Store under SECRETS_PATH
// (`/tootless/<stage>`: `secret-key-base` and `vapid-private-key` as SecureString,
// `vapid-public-key`), created by the deploy workflow (infra/deploy/secrets.sh).
// They are read at run time rather than put in the functions' environment, where
// anyone allowed GetFunctionConfiguration could read them (and where CloudFormation
// would need three dynamic references per function, past the template's 60).
// Every entry point (http(), and streamHttp() through it; websocket(); worker();
// the sweeper) awaits loadSecrets() before its body: one GetParameters call per
// container, the values then held in memory for the container's life, so callers
// read them synchronously through secrets(). There is no
// refresh: nothing rotates these values (a new VAPID pair orphans every push
// subscription, a new secret key base voids every sealed push token), and after an
// operator changes one, a deploy starts new containers that read it. A failed read
// is not remembered: the invocation fails (HTTP 500, or the messages go back to
// their queue) and the next one reads again.
//
// Without SECRETS_PATH (the local stack, tests) the values come from the
// environment, read on each access. Only the local stage may run without a secret
// key base, on the public development value; any other stage refuses every
// request rather than sign and seal with a value anyone can read in this file.
import { createECDH, hkdfSync } from 'node:crypto';
import { getParameters } from './aws/ssm';
import { z } from 'zod';
import { config, requireStage, StageNotSet, useDeployedOrigin } from './config';
import { HttpError } from './errors';
import { log } from './log';

export type Secrets = {
  secretKeyBase: string;
  /**
   * Always set: clients read it from the instance (`configuration.vapid.public_key`) and the Application
   * (`vapid_key`) to subscribe to Web Push. Without SECRETS_PATH and without both VAPID_* variables, the
   * pair is derived from the secret key base (derivedVapidKeys), so it is as stable and as secret as that.
   */
  vapidPublicKey: string;
  vapidPrivateKey: string;
  /**
   * The value the stage's one origin (its CloudFront distribution, the local stack's front) adds to every request
   * it passes on (lib/origin.ts); empty where there is none (tests calling handlers), and then nothing is believed.
   */
  originSecret: string;
  /** The stage's public URL as its stack published it (a deployed stage whose BASE_URL is not set). */
  publicUrl?: string;
  /** The translation service's keys (lib/translation/), where the operator set one; empty otherwise. */
  deeplApiKey: string;
  libreTranslateApiKey: string;
};

/** Public, so usable only where nothing needs protecting: the local stage. */
const DEVELOPMENT_SECRET = 'local-development-secret-change-me';

/** The parameters under SECRETS_PATH. All three are required there: the deploy workflow creates them together. */
const parameterNames = (path: string) => ({
  secretKeyBase: `${path}/secret-key-base`,
  vapidPublicKey: `${path}/vapid-public-key`,
  vapidPrivateKey: `${path}/vapid-private-key`,
  originSecret: `${path}/origin-secret`,
});

/** Written by the stack itself (infra/cdn.yml, CdnPublicUrl), read in the same call; needed only without BASE_URL. */
const publicUrlName = (path: string) => `${path}/public-url`;

/** Set by the operator only to turn machine translation on (README, "Translation"); read in the same call, absent is none. */
const optionalNames = (path: string) => ({ deeplApiKey: `${path}/deepl-api-key`, libreTranslateApiKey: `${path}/libre-translate-api-key` });

/**
 * The server cannot serve without its secrets. The client gets a plain 500
 * `{"error"}` (the reason is the operator's business, not the caller's); the log
 * line written where it is raised names the missing setting.
 */
export class SecretsUnavailable extends HttpError {
  constructor(readonly reason: string) {
    super(500, 'Internal server error');
    this.name = 'SecretsUnavailable';
  }
}

const fromEnvironment = (): Secrets => {
  const secretKeyBase = process.env.SECRET_KEY_BASE || (config.stage === 'local' ? DEVELOPMENT_SECRET : undefined);
  if (!secretKeyBase) {
    const reason = `SECRET_KEY_BASE is not set on stage '${config.stage}' (and SECRETS_PATH names no SSM path): refusing to run on the public development secret, which only the local stage may use`;
    log.error(`secrets: ${reason}`, { setting: 'SECRET_KEY_BASE', stage: config.stage });
    throw new SecretsUnavailable(reason);
  }
  const [publicKey, privateKey] = [process.env.VAPID_PUBLIC_KEY, process.env.VAPID_PRIVATE_KEY];
  const vapid = publicKey && privateKey ? { publicKey, privateKey } : derivedVapidKeys(secretKeyBase);
  return {
    secretKeyBase,
    vapidPublicKey: vapid.publicKey,
    vapidPrivateKey: vapid.privateKey,
    originSecret: process.env.ORIGIN_SECRET ?? '',
    deeplApiKey: process.env.DEEPL_API_KEY ?? '',
    libreTranslateApiKey: process.env.LIBRE_TRANSLATE_API_KEY ?? '',
  };
};

const derived = new Map<string, { publicKey: string; privateKey: string }>();

/**
 * A P-256 (VAPID, RFC 8292) key pair derived from the secret key base with HKDF, in web-push's encoding
 * (base64url of the raw 32-byte private scalar and the 65-byte uncompressed public point). A stage that
 * configures no pair still serves a real key, the same one on every container and after every restart,
 * so push subscriptions made against it keep working; rotating the secret key base rotates it too.
 */
export function derivedVapidKeys(secretKeyBase: string): { publicKey: string; privateKey: string } {
  const known = derived.get(secretKeyBase);
  if (known) return known;
  // A 32-byte string is a valid scalar unless it is zero or at least the curve's order (odds about 2^-32): try the next one then.
  for (let attempt = 0; ; attempt++) {
    const scalar = Buffer.from(hkdfSync('sha256', secretKeyBase, 'tootless', `vapid-key-pair:${attempt}`, 32));
    const ecdh = createECDH('prime256v1');
    try {
      ecdh.setPrivateKey(scalar);
    } catch {
      continue;
    }
    const pair = { publicKey: ecdh.getPublicKey().toString('base64url'), privateKey: scalar.toString('base64url') };
    derived.set(secretKeyBase, pair);
    return pair;
  }
}

const getParametersOutput = z.object({
  Parameters: z.array(z.object({ Name: z.string(), Value: z.string() })).default([]),
  InvalidParameters: z.array(z.string()).default([]),
});

/** The values read from SSM, by path; a path is read once (a test process may look at several). */
const loaded = new Map<string, Secrets>();
/** Reads under way, so concurrent first requests in one process share one call. */
const reading = new Map<string, Promise<Secrets>>();

async function readParameters(path: string): Promise<Secrets> {
  const names = parameterNames(path);
  let out: z.infer<typeof getParametersOutput>;
  try {
    out = getParametersOutput.parse(await getParameters([...Object.values(names), publicUrlName(path), ...Object.values(optionalNames(path))]));
  } catch (err) {
    const reason = `could not read the SSM parameters under ${path} (ssm:GetParameters, kms:Decrypt)`;
    log.error(`secrets: ${reason}`, { setting: 'SECRETS_PATH', path, err });
    throw new SecretsUnavailable(reason);
  }
  const value = (name: string) => out.Parameters.find((p) => p.Name === name)?.Value ?? '';
  const [secretKeyBase, vapidPublicKey, vapidPrivateKey] = [value(names.secretKeyBase), value(names.vapidPublicKey), value(names.vapidPrivateKey)];
  const publicUrl = value(publicUrlName(path)) || undefined;
  const missing = [...Object.values(names), ...(publicUrl || process.env.BASE_URL ? [] : [publicUrlName(path)])].filter((name) => !value(name));
  if (missing.length > 0) {
    const reason = `missing SSM parameter${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (created by infra/deploy/secrets.sh; public-url by the stack)`;
    log.error(`secrets: ${reason}`, { setting: 'SECRETS_PATH', path, missing });
    throw new SecretsUnavailable(reason);
  }
  const optional = optionalNames(path);
  return {
    secretKeyBase,
    vapidPublicKey,
    vapidPrivateKey,
    originSecret: value(names.originSecret),
    publicUrl,
    deeplApiKey: value(optional.deeplApiKey),
    libreTranslateApiKey: value(optional.libreTranslateApiKey),
  };
}

/**
 * Makes the secrets available to secrets() (and config's getters); every entry point
 * awaits it first. Rejects with SecretsUnavailable, after logging why, when they
 * cannot be had; the next call tries again.
 */
export async function loadSecrets(): Promise<void> {
  try {
    requireStage();
  } catch (err) {
    if (!(err instanceof StageNotSet)) throw err;
    log.error(`secrets: ${err.message}`, { setting: 'STAGE' });
    throw new SecretsUnavailable(err.message);
  }
  const path = config.secretsPath;
  if (!path) {
    fromEnvironment();
    return;
  }
  const known = loaded.get(path);
  if (known) {
    useDeployedOrigin(known.publicUrl);
    return;
  }
  let pending = reading.get(path);
  if (!pending) {
    pending = readParameters(path).finally(() => reading.delete(path));
    reading.set(path, pending);
  }
  const values = await pending;
  loaded.set(path, values);
  useDeployedOrigin(values.publicUrl);
}

/** The secrets, synchronously: from the environment, or as loadSecrets() read them. */
export function secrets(): Secrets {
  const path = config.secretsPath;
  if (!path) return fromEnvironment();
  const values = loaded.get(path);
  // An entry point that forgot to await loadSecrets() is a bug to see at once, not a reason to read secrets elsewhere.
  if (!values) throw new SecretsUnavailable(`the secrets under ${path} were used before loadSecrets() read them`);
  return values;
}
