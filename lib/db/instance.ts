// Instance settings: one item, read on registration, auth and the instance endpoints.
import { z } from 'zod';
import { config } from '../config';
import { memo } from '../memo';
import * as keys from './keys';
import { getItem, nowIso, putItem, updateItem } from './table';

export const registrationModes = ['open', 'approved', 'none'] as const;

const rule = z.object({ id: z.string(), text: z.string() });

export const settingsItem = z.object({
  title: z.string().default('Tootless'),
  shortDescription: z.string().default('A serverless, Mastodon-compatible microblogging server.'),
  description: z.string().default(''),
  contactEmail: z.string().default(''),
  contactUsername: z.string().nullable().default(null),
  /** open: anyone; approved: accounts wait for a moderator; none: closed. */
  registrationsMode: z.enum(registrationModes).default('open'),
  /** Unset means: off on the local stage, on elsewhere. */
  requireEmailConfirmation: z.boolean().optional(),
  /** When false, public timelines need an app token with read:statuses. */
  publicPreview: z.boolean().default(true),
  languages: z.array(z.string()).default(['en']),
  rules: z.array(rule).default([]),
  /** GET /api/v1/instance/domain_blocks answers the operator's domain blocks (else 404). */
  domainBlocksPublic: z.boolean().default(false),
  /** ActivityPub documents only to signed requests of servers not suspended (Mastodon's AUTHORIZED_FETCH). */
  authorizedFetch: z.boolean().default(false),
  /** New tags, links and statuses trend before a moderator reviews them (Mastodon's trendable_by_default, off by default). */
  trendableByDefault: z.boolean().default(false),
  /**
   * Only the domains the operator allowed (lib/db/domain_allows.ts) federate, and documents are served only to
   * signed requests of theirs (Mastodon's LIMITED_FEDERATION_MODE, which implies authorized fetch).
   */
  limitedFederation: z.boolean().default(false),
  /** The server's status page, if it has one (Instance `configuration.urls.status`). */
  statusPageUrl: z.string().nullable().default(null),
  /**
   * The effective dates (YYYY-MM-DD, ascending) of the published terms of service, each an item of
   * lib/db/instance_documents.ts: kept here, in the item every instance request already reads, so that the
   * instance entity knows whether there are terms and the terms endpoint which version is current without a Query.
   */
  termsDates: z.array(z.string()).default([]),
  updatedAt: z.string().optional(),
  /** When the long description last changed; unset until an operator sets one (ExtendedDescription's updated_at). */
  descriptionUpdatedAt: z.string().optional(),
});
export type InstanceSettings = z.infer<typeof settingsItem> & { requireEmailConfirmation: boolean };

const withDefaults = (s: z.infer<typeof settingsItem>): InstanceSettings => ({
  ...s,
  requireEmailConfirmation: s.requireEmailConfirmation ?? config.stage !== 'local',
});

/** The settings as stored now: for the operator's commands and for decisions that must follow a change at once. */
export async function instanceSettings(): Promise<InstanceSettings> {
  const stored = await getItem(keys.instanceSettings(), settingsItem);
  return withDefaults(stored ?? settingsItem.parse({}));
}

const kept = memo(instanceSettings);

/**
 * The settings as read at most MEMO_TTL_MS ago in this container (lib/memo.ts), for what every request reads
 * (the instance endpoints, the public preview check): a change made here shows at once, one made in another
 * container or by the CLI within the TTL. Frozen: shared by every caller.
 */
export const recentInstanceSettings = (): Promise<InstanceSettings> => kept.get();

export async function updateInstanceSettings(changes: Partial<z.infer<typeof settingsItem>>): Promise<InstanceSettings> {
  const current = (await getItem(keys.instanceSettings(), settingsItem, true)) ?? settingsItem.parse({});
  const now = nowIso();
  const described = changes.description !== undefined && changes.description !== current.description;
  const next = settingsItem.parse({ ...current, ...changes, updatedAt: now, ...(described ? { descriptionUpdatedAt: now } : {}) });
  try {
    await putItem({ ...keys.instanceSettings(), ...next });
  } finally {
    kept.forget();
  }
  return withDefaults(next);
}

/**
 * Records which terms versions exist (lib/db/instance_documents.ts, after each publish or removal), leaving the
 * other settings and their updatedAt alone: that date is the long description's for items older than its own.
 */
export async function setTermsDates(dates: string[]): Promise<void> {
  try {
    await updateItem(
      { Key: keys.instanceSettings(), UpdateExpression: 'SET termsDates = :d', ExpressionAttributeValues: { ':d': [...dates].sort() } },
      settingsItem,
    );
  } finally {
    kept.forget();
  }
}
