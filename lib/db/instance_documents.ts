// The operator's documents: the terms of service, one item per published version in the INSTANCE_TERMS
// partition (by effective date: few, read by date), and the privacy policy, one item beside the settings.
// Each keeps what the operator wrote and the sanitised HTML it was rendered to when published (lib/instance/
// documents.ts), so that serving one is one GetItem and no function bundle carries a Markdown renderer.
import { z } from 'zod';
import { setTermsDates } from './instance';
import * as keys from './keys';
import { deleteItem, getItem, nowIso, putItem, queryAll } from './table';

export const documentFormats = ['markdown', 'html'] as const;
export type DocumentFormat = (typeof documentFormats)[number];

export const termsItem = z.object({
  /** YYYY-MM-DD, the day these terms take effect (from its first moment, UTC). */
  effectiveDate: z.string(),
  /** What the operator published, as written. */
  source: z.string(),
  format: z.enum(documentFormats),
  contentHtml: z.string(),
  publishedAt: z.string(),
});
export type TermsVersion = z.infer<typeof termsItem>;

export const privacyPolicyItem = z.object({
  source: z.string(),
  format: z.enum(documentFormats),
  contentHtml: z.string(),
  updatedAt: z.string(),
});
export type PrivacyPolicy = z.infer<typeof privacyPolicyItem>;

export const termsVersion = (effectiveDate: string) => getItem(keys.instanceTerms(effectiveDate), termsItem);

/** Every published version, oldest effective date first (the operator's list). */
export const allTermsVersions = () =>
  queryAll(
    { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.instanceTermsPartition() }, ConsistentRead: true },
    termsItem,
  );

const effectiveDates = async () =>
  (
    await queryAll(
      {
        KeyConditionExpression: 'PK = :p',
        ExpressionAttributeValues: { ':p': keys.instanceTermsPartition() },
        ProjectionExpression: 'effectiveDate',
        ConsistentRead: true,
      },
      termsItem.pick({ effectiveDate: true }),
    )
  ).map((t) => t.effectiveDate);

/**
 * The settings' list of versions, rebuilt from the partition itself: a publish or removal that failed halfway is
 * mended by the next one.
 */
const syncTermsDates = async () => setTermsDates(await effectiveDates());

/** Publishes a version; false when one already takes effect on that date (Mastodon: one version per date). */
export async function putTermsVersion(version: Omit<TermsVersion, 'publishedAt'>): Promise<TermsVersion | undefined> {
  const item = { ...version, publishedAt: nowIso() };
  const written = await putItem({ ...keys.instanceTerms(version.effectiveDate), ...item }, { ifAbsent: true });
  await syncTermsDates();
  return written ? item : undefined;
}

/** Withdraws a version; undefined when there was none of that date. */
export async function deleteTermsVersion(effectiveDate: string): Promise<TermsVersion | undefined> {
  const removed = await deleteItem(keys.instanceTerms(effectiveDate), termsItem, { ConditionExpression: 'attribute_exists(PK)' });
  await syncTermsDates();
  return removed;
}

/** The operator's privacy policy; undefined while none was set (the default is served). */
export const storedPrivacyPolicy = () => getItem(keys.instancePrivacyPolicy(), privacyPolicyItem);

export async function putPrivacyPolicy(policy: Omit<PrivacyPolicy, 'updatedAt'>): Promise<PrivacyPolicy> {
  const item = { ...policy, updatedAt: nowIso() };
  await putItem({ ...keys.instancePrivacyPolicy(), ...item });
  return item;
}

/** Back to the default policy; the removed one, if any. */
export const deletePrivacyPolicy = () => deleteItem(keys.instancePrivacyPolicy(), privacyPolicyItem);
