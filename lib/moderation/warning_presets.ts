// Warning presets (Mastodon's AccountWarningPreset and Admin::WarningPresetsController): texts an operator writes
// once for the warnings moderators send. Managing them needs manage_settings (Mastodon's AccountWarningPresetPolicy);
// using one in an account action needs only the action's own permission (lib/moderation/actions.ts). Each change is
// one audit entry. A strike keeps the text it was given, so changing or deleting a preset leaves past strikes as
// they were.
import type { Account } from '../db/accounts';
import { nowIso } from '../db/table';
import { allWarningPresets, createWarningPreset, deleteWarningPreset, updateWarningPreset, warningPresetById, type WarningPreset } from '../db/warning_presets';
import { forbidden, notFound, unprocessable } from '../errors';
import { isId, newId } from '../ids';
import { can } from '../policy/roles';
import { recordAction, type AuditTarget } from './audit';

/** Mastodon stores the title in a string column; this is that column's customary bound. */
export const PRESET_TITLE_MAX = 255;
/** Mastodon leaves the text unbounded; here it is the bound of a warning's own text (the admin API's `text`). */
export const PRESET_TEXT_MAX = 5_000;
/** How much of the text a preset's label shows (Mastodon's LABEL_TEXT_LENGTH). */
const LABEL_TEXT_LENGTH = 30;

export type PresetInput = { title?: string; text?: string };

const assertMayManage = (moderator: Account) => {
  if (!can(moderator, 'manage_settings')) throw forbidden();
};

const length = (s: string) => Array.from(s).length;

/** The preset's fields as stored: trimmed; 422 naming the field for a blank text or a field over its bound. */
function validated(input: PresetInput): { title: string; text: string } {
  const title = (input.title ?? '').trim();
  const text = (input.text ?? '').trim();
  if (!text) throw unprocessable("Validation failed: Text can't be blank");
  if (length(text) > PRESET_TEXT_MAX) throw unprocessable(`Validation failed: Text is too long (maximum is ${PRESET_TEXT_MAX} characters)`);
  if (length(title) > PRESET_TITLE_MAX) throw unprocessable(`Validation failed: Title is too long (maximum is ${PRESET_TITLE_MAX} characters)`);
  return { title, text };
}

/** What a moderator reads for a preset in a list: its title (when it has one), then the start of its text. */
export function presetLabel(preset: Pick<WarningPreset, 'title' | 'text'>): string {
  const chars = Array.from(preset.text);
  const text = chars.length > LABEL_TEXT_LENGTH ? `${chars.slice(0, LABEL_TEXT_LENGTH - 3).join('')}...` : preset.text;
  return preset.title ? `${preset.title} - ${text}` : text;
}

const target = (preset: WarningPreset): AuditTarget => ({ type: 'AccountWarningPreset', id: preset.id, human: presetLabel(preset) });

/** Every preset, alphabetic (the preset page). */
export async function listWarningPresets(moderator: Account): Promise<WarningPreset[]> {
  assertMayManage(moderator);
  return allWarningPresets();
}

/** A preset to edit: 404 for an unknown id. */
export async function warningPresetToEdit(moderator: Account, id: string): Promise<WarningPreset> {
  assertMayManage(moderator);
  const preset = isId(id) ? await warningPresetById(id) : undefined;
  if (!preset) throw notFound();
  return preset;
}

export async function addWarningPreset(moderator: Account, input: PresetInput): Promise<WarningPreset> {
  assertMayManage(moderator);
  const at = nowIso();
  const preset: WarningPreset = { id: newId(), ...validated(input), createdAt: at, updatedAt: at };
  await createWarningPreset(preset);
  await recordAction(moderator, 'create', target(preset));
  return preset;
}

export async function changeWarningPreset(moderator: Account, id: string, input: PresetInput): Promise<WarningPreset> {
  assertMayManage(moderator);
  const fields = validated(input);
  const changed = isId(id) ? await updateWarningPreset(id, { ...fields, updatedAt: nowIso() }) : undefined;
  if (!changed) throw notFound();
  await recordAction(moderator, 'update', target(changed));
  return changed;
}

export async function removeWarningPreset(moderator: Account, id: string): Promise<void> {
  assertMayManage(moderator);
  const removed = isId(id) ? await deleteWarningPreset(id) : undefined;
  if (!removed) throw notFound();
  await recordAction(moderator, 'destroy', target(removed));
}

/**
 * The text of a strike given a preset and the moderator's own text, as Admin::AccountAction#text_for_warning
 * joins them: the preset's text first, then the moderator's, a blank line between; a part that is empty is left out.
 */
export const warningText = (presetText: string | undefined, text: string | undefined): string =>
  [presetText?.trim(), text?.trim()].filter((part): part is string => !!part).join('\n\n');
