// Profile changes (PATCH /api/v1/accounts/update_credentials): every rule is
// checked and every image decoded before anything is stored; then the images
// are uploaded and the account is changed in one update.
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

export const updateCredentialsInput = z.object({
  // Raw caps (lib/text/limits.ts): a note is linkified and counted, which must not cost more than a normal one.
  display_name: cappedText(RAW_CAPS.displayName, DISPLAY_NAME_MAX).optional(),
  note: cappedText(RAW_CAPS.note, NOTE_MAX).optional(),
  avatar: image,
  header: image,
  locked: booleanish.optional(),
  bot: booleanish.optional(),
  discoverable: booleanish.optional(),
  source: z
    .object(
      {
        privacy: raw(100).optional(),
        sensitive: booleanish.optional(),
        language: raw(100).nullable().optional(),
      },
      { invalid_type_error: 'must be an object' },
    )
    .optional(),
  // A value that is no list or object (a form encoder's `fields_attributes=undefined`) is dropped, as Rails's
  // strong parameters drop a scalar where nested attributes are expected: the fields stay as they are.
  fields_attributes: z.preprocess((v) => (typeof v === 'object' && v !== null ? v : undefined), fieldRows.optional()),
});
export type UpdateCredentialsInput = z.infer<typeof updateCredentialsInput>;

const PRIVACIES = ['public', 'unlisted', 'private'] as const;
type Privacy = (typeof PRIVACIES)[number];
const isPrivacy = (v: string): v is Privacy => (PRIVACIES as readonly string[]).includes(v);

type Changes = Parameters<typeof updateAccount>[1];

/** The text changes, checked against every rule; violations are added to `v`. */
function textChanges(input: UpdateCredentialsInput, v: Violations): Changes {
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

  const source = input.source ?? {};
  if (source.privacy !== undefined) {
    if (isPrivacy(source.privacy)) changes.privacy = source.privacy;
    else v.add('source.privacy', 'Default privacy', 'ERR_INCLUSION', describe.inclusion);
  }
  if (source.sensitive !== undefined) changes.sensitive = source.sensitive;
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

export async function updateProfile(account: Account, input: UpdateCredentialsInput): Promise<Account> {
  const v = new Violations();
  const changes = textChanges(input, v);
  const images = await decodeImages(
    [
      { attribute: 'avatar', label: 'Avatar', file: input.avatar },
      { attribute: 'header', label: 'Header', file: input.header },
    ],
    v,
  );
  v.check();

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
