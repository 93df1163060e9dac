// Profile changes, for PATCH /api/v1/accounts/update_credentials and Mastodon 4.6's PATCH /api/v1/profile (one
// Account#update for both in Mastodon, UpdateAccountService): every rule is checked and every image decoded
// before anything is stored; then the images are uploaded and the account is changed in one update.
import { domainToASCII } from 'node:url';
import { z } from 'zod';
import { updateAccount, type Account } from '../db/accounts';
import { syncDirectoryListing } from '../db/directory';
import { indexDisplayName } from '../search/accounts';
import { notFound } from '../errors';
import { sendPersonUpdate } from '../federation/outbox';
import { isUploadedFile, type UploadedFile } from '../http/body';
import { booleanish } from '../schema';
import { AVATAR_SIZE, HEADER_SIZE, MAX_INPUT_PIXELS, processProfileImage, type ImageProblem, type ProcessedImage } from '../media/image';
import { deleteMediaQuietly, profileImageKey, putMedia } from '../media/storage';
import { countableLength, fieldValueToHtml, noteToHtml } from '../text';
import { isLanguageCode } from '../text/languages';
import { cappedText, COUNTED_LIMITS, RAW_CAPS } from '../text/limits';
import { charLength, describe, Violations } from './violations';

export const DISPLAY_NAME_MAX = COUNTED_LIMITS.displayName;
export const NOTE_MAX = COUNTED_LIMITS.note;
export const FIELDS_MAX = COUNTED_LIMITS.fields;
export const FIELD_TEXT_MAX = COUNTED_LIMITS.fieldText;
const FIELD_ROWS_MAX = RAW_CAPS.fieldRows;
/** Avatar and header descriptions: Mastodon's MediaAttachment::MAX_DESCRIPTION_LENGTH (Account::Avatar, ::Header). */
export const IMAGE_DESCRIPTION_MAX = COUNTED_LIMITS.mediaDescription;
/** Account::AttributionDomains: at most 10 sites. */
export const ATTRIBUTION_DOMAINS_MAX = 10;
/** Entries a request may carry before normalising (blanks and repeats dropped, then the limit of 10 applies). */
const ATTRIBUTION_ENTRIES_CAP = 50;

const str = z.string({ invalid_type_error: 'must be a string' });
/** Bounded before any rule runs so oversized input cannot cost much; the rules give the real limits. */
const raw = (max: number) => str.max(max, `is too long (maximum is ${max} characters)`);

const image = z.preprocess(
  (v) => (v === '' || v === null ? undefined : v),
  z.custom<UploadedFile>(isUploadedFile, 'must be an image file sent as multipart/form-data').optional(),
);

const fieldRow = z.object(
  {
    name: cappedText(RAW_CAPS.fieldText, FIELD_TEXT_MAX).optional().default(''),
    value: cappedText(RAW_CAPS.fieldText, FIELD_TEXT_MAX).optional().default(''),
  },
  { invalid_type_error: 'must be an object of name and value' },
);

/** Rails accepts an array or an index-keyed hash (`fields_attributes[0][name]`); rows keep their index order. */
const fieldRows = z
  .union([z.array(fieldRow), z.record(z.string(), fieldRow)], { invalid_type_error: 'must be an array of name and value' })
  .transform((v) => (Array.isArray(v) ? v : Object.entries(v).sort(([a], [b]) => Number(a) - Number(b) || a.localeCompare(b)).map(([, row]) => row)))
  .refine((rows) => rows.length <= FIELD_ROWS_MAX, `has too many rows (maximum is ${FIELD_ROWS_MAX})`);

/** Rails's `attribution_domains: []`: a list of strings; anything else (a lone string) is dropped as Rails drops it. */
const attributionDomains = z.preprocess(
  (v) => (Array.isArray(v) ? v : undefined),
  z.array(raw(300)).max(ATTRIBUTION_ENTRIES_CAP, `has too many entries (maximum is ${ATTRIBUTION_DOMAINS_MAX})`).optional(),
);

/** What both endpoints take (Mastodon's two `account_params`, less what only one of them permits). */
const profileParams = {
  // Raw caps (lib/text/limits.ts): a note is linkified and counted, which must not cost more than a normal one.
  display_name: cappedText(RAW_CAPS.displayName, DISPLAY_NAME_MAX).optional(),
  note: cappedText(RAW_CAPS.note, NOTE_MAX).optional(),
  avatar: image,
  avatar_description: cappedText(2 * IMAGE_DESCRIPTION_MAX, IMAGE_DESCRIPTION_MAX).optional(),
  header: image,
  header_description: cappedText(2 * IMAGE_DESCRIPTION_MAX, IMAGE_DESCRIPTION_MAX).optional(),
  locked: booleanish.optional(),
  bot: booleanish.optional(),
  discoverable: booleanish.optional(),
  hide_collections: booleanish.optional(),
  indexable: booleanish.optional(),
  attribution_domains: attributionDomains,
  // A value that is no list or object (a form encoder's `fields_attributes=undefined`) is dropped, as Rails's
  // strong parameters drop a scalar where nested attributes are expected: the fields stay as they are.
  fields_attributes: z.preprocess((v) => (typeof v === 'object' && v !== null ? v : undefined), fieldRows.optional()),
};

/** PATCH /api/v1/profile (Mastodon 4.6's Api::V1::ProfilesController): the profile tabs, no posting defaults. */
export const profileInput = z.object({
  ...profileParams,
  show_media: booleanish.optional(),
  show_media_replies: booleanish.optional(),
  show_featured: booleanish.optional(),
});
export type ProfileUpdateInput = z.infer<typeof profileInput>;

export const updateCredentialsInput = z.object({
  ...profileParams,
  source: z
    .object(
      {
        privacy: raw(100).optional(),
        sensitive: booleanish.optional(),
        language: raw(100).nullable().optional(),
        quote_policy: raw(100).optional(),
      },
      { invalid_type_error: 'must be an object' },
    )
    .optional(),
});
export type UpdateCredentialsInput = z.infer<typeof updateCredentialsInput>;

/** Either endpoint's input: what one of them does not take is simply absent. */
type ProfileChangeInput = UpdateCredentialsInput & ProfileUpdateInput;

const PRIVACIES = ['public', 'unlisted', 'private'] as const;
type Privacy = (typeof PRIVACIES)[number];
const isPrivacy = (v: string): v is Privacy => (PRIVACIES as readonly string[]).includes(v);
const QUOTE_POLICIES = ['public', 'followers', 'nobody'] as const;
const isQuotePolicy = (v: string): v is (typeof QUOTE_POLICIES)[number] => (QUOTE_POLICIES as readonly string[]).includes(v);

type Changes = Parameters<typeof updateAccount>[1];

/**
 * Account::AttributionDomains: each entry without its scheme or `*.`, blanks and repeats dropped; every one must
 * be a host name (DomainValidator: labels of 1 to 63 letters, digits and hyphens, under 256 characters in all,
 * an internationalised name in its ASCII form).
 */
function attributionChanges(entries: string[], v: Violations): string[] {
  const domains = [
    ...new Set(
      entries
        .map((entry) => entry.trim().replace(/^https?:\/\//i, '').replace(/^\*\./, '').toLowerCase())
        .filter((entry) => entry !== ''),
    ),
  ];
  if (domains.length > ATTRIBUTION_DOMAINS_MAX) {
    v.add('attribution_domains', 'Attribution domains', 'ERR_TOO_LONG', `are too many (maximum is ${ATTRIBUTION_DOMAINS_MAX})`);
  }
  const isHost = (domain: string) => {
    const ascii = domainToASCII(domain);
    return ascii !== '' && ascii.length < 256 && ascii.split('.').every((label) => /^[a-z0-9-]{1,63}$/.test(label));
  };
  if (!domains.every(isHost)) v.add('attribution_domains', 'Attribution domains', 'ERR_INVALID', describe.invalid);
  return domains;
}

/** The text changes, checked against every rule; violations are added to `v`. */
function textChanges(input: ProfileChangeInput, v: Violations): Changes {
  const changes: Changes = {};
  if (input.display_name !== undefined) {
    const name = input.display_name.trim();
    if (charLength(name) > DISPLAY_NAME_MAX) v.add('display_name', 'Display name', 'ERR_TOO_LONG', describe.tooLong(DISPLAY_NAME_MAX));
    changes.displayName = name;
  }
  if (input.note !== undefined) {
    const note = input.note.trim();
    if (countableLength(note) > NOTE_MAX) v.add('note', 'Note', 'ERR_TOO_LONG', describe.tooLong(NOTE_MAX));
    changes.note = note;
    changes.noteHtml = noteToHtml(note);
  }
  if (input.locked !== undefined) changes.locked = input.locked;
  if (input.bot !== undefined) changes.bot = input.bot;
  if (input.discoverable !== undefined) changes.discoverable = input.discoverable;
  if (input.hide_collections !== undefined) changes.hideCollections = input.hide_collections;
  if (input.indexable !== undefined) changes.indexable = input.indexable;
  if (input.show_media !== undefined) changes.showMedia = input.show_media;
  if (input.show_media_replies !== undefined) changes.showMediaReplies = input.show_media_replies;
  if (input.show_featured !== undefined) changes.showFeatured = input.show_featured;
  if (input.attribution_domains !== undefined) changes.attributionDomains = attributionChanges(input.attribution_domains, v);
  const descriptions = [
    ['avatar_description', 'Avatar description', input.avatar_description, 'avatarDescription'],
    ['header_description', 'Header description', input.header_description, 'headerDescription'],
  ] as const;
  for (const [attribute, label, value, key] of descriptions) {
    if (value === undefined) continue;
    const description = value.trim();
    if (charLength(description) > IMAGE_DESCRIPTION_MAX) v.add(attribute, label, 'ERR_TOO_LONG', describe.tooLong(IMAGE_DESCRIPTION_MAX));
    changes[key] = description;
  }

  const source = input.source ?? {};
  if (source.privacy !== undefined) {
    if (isPrivacy(source.privacy)) changes.privacy = source.privacy;
    else v.add('source.privacy', 'Default privacy', 'ERR_INCLUSION', describe.inclusion);
  }
  if (source.sensitive !== undefined) changes.sensitive = source.sensitive;
  if (source.quote_policy !== undefined) {
    // Mastodon 4.5's default quote policy of new statuses (its user setting `default_quote_policy`).
    if (isQuotePolicy(source.quote_policy)) changes.quotePolicy = source.quote_policy;
    else v.add('source.quote_policy', 'Default quote policy', 'ERR_INCLUSION', describe.inclusion);
  }
  if (source.language !== undefined) {
    const language = source.language?.trim() ?? '';
    if (language === '') changes.language = null;
    else if (isLanguageCode(language)) changes.language = language.toLowerCase();
    else v.add('source.language', 'Default language', 'ERR_INCLUSION', describe.inclusion);
  }

  if (input.fields_attributes !== undefined) {
    const rows = input.fields_attributes
      .map((row) => ({ name: row.name.trim(), value: row.value.trim() }))
      .filter((row) => row.name !== '' || row.value !== '');
    if (rows.length > FIELDS_MAX) v.add('fields', 'Fields', 'ERR_TOO_LONG', `are too many (maximum is ${FIELDS_MAX})`);
    if (rows.some((row) => row.name === '')) v.add('fields', 'Fields', 'ERR_INVALID', 'contains values with missing labels');
    if (rows.some((row) => charLength(row.name) > FIELD_TEXT_MAX || charLength(row.value) > FIELD_TEXT_MAX)) {
      v.add('fields', 'Fields', 'ERR_TOO_LONG', `have a name or value that is too long (maximum is ${FIELD_TEXT_MAX} characters)`);
    }
    changes.fields = rows;
    changes.fieldsHtml = rows.map((row) => ({ name: row.name, value: fieldValueToHtml(row.value), verifiedAt: null }));
  }
  return changes;
}

const IMAGE_PROBLEMS: Record<ImageProblem, string> = {
  type: 'content type is invalid (a JPEG, PNG, GIF or WebP image is expected)',
  size: 'file size must be less than 2 MB',
  dimensions: `dimensions are too large (at most ${MAX_INPUT_PIXELS} pixels)`,
  corrupt: 'is invalid (the image could not be decoded)',
};

type Slot = { attribute: 'avatar' | 'header'; label: string; file: UploadedFile | undefined };

async function decodeImages(slots: Slot[], v: Violations): Promise<Map<Slot['attribute'], ProcessedImage>> {
  const decoded = new Map<Slot['attribute'], ProcessedImage>();
  // Decoded in parallel; problems reported in slot order so the message is stable.
  const results = await Promise.all(
    slots.map(({ attribute, file }) =>
      file ? processProfileImage(file.data, attribute === 'avatar' ? AVATAR_SIZE : HEADER_SIZE) : undefined,
    ),
  );
  slots.forEach(({ attribute, label }, i) => {
    const result = results[i];
    if (!result) return;
    if (result.ok) decoded.set(attribute, result.image);
    else v.add(attribute, label, 'ERR_INVALID', IMAGE_PROBLEMS[result.problem]);
  });
  return decoded;
}

/**
 * `details`: the 422 names each field with its error codes, as Mastodon's ProfilesController answers through
 * ValidationErrorFormatter; update_credentials answers the message alone.
 */
export async function updateProfile(account: Account, input: ProfileChangeInput, opts: { details?: boolean } = {}): Promise<Account> {
  const v = new Violations();
  const changes = textChanges(input, v);
  const images = await decodeImages(
    [
      { attribute: 'avatar', label: 'Avatar', file: input.avatar },
      { attribute: 'header', label: 'Header', file: input.header },
    ],
    v,
  );
  v.check(opts);

  const avatar = images.get('avatar');
  const header = images.get('header');
  const uploaded: string[] = [];
  try {
    if (avatar) {
      changes.avatarKey = profileImageKey('avatars', account.id, avatar.extension);
      await putMedia(changes.avatarKey, avatar.data, avatar.contentType);
      uploaded.push(changes.avatarKey);
    }
    if (header) {
      changes.headerKey = profileImageKey('headers', account.id, header.extension);
      await putMedia(changes.headerKey, header.data, header.contentType);
      uploaded.push(changes.headerKey);
    }
    const updated = await updateAccount(account.id, changes);
    if (!updated) throw notFound();
    if (updated.displayName !== account.displayName) await indexDisplayName(account.id, account.displayName, updated.displayName);
    // Every save that says `discoverable` lists or unlists the account in the profile directory.
    if (input.discoverable !== undefined) await syncDirectoryListing(account, updated);
    await deleteMediaQuietly([avatar ? account.avatarKey : null, header ? account.headerKey : null]);
    // Remote followers' servers refresh their copy (this never throws: the profile is saved).
    await sendPersonUpdate(updated);
    return updated;
  } catch (err) {
    await deleteMediaQuietly(uploaded);
    throw err;
  }
}
