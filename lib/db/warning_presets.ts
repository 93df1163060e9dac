// Warning presets (Mastodon's AccountWarningPreset): texts the operator writes once and moderators pick when they
// warn or sanction an account. An instance keeps a few, so they are one partition read whole (the preset page, the
// account page's choice) and each is read by key when an action names it.
import { z } from 'zod';
import * as keys from './keys';
import { deleteItem, getItem, putItem, queryAll, updateItem } from './table';

export const warningPresetItem = z.object({
  id: z.string(),
  /** May be empty (Mastodon's default ''). */
  title: z.string().default(''),
  text: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WarningPreset = z.infer<typeof warningPresetItem>;

/** Stores a new preset (its id is new: never overwrites). */
export const createWarningPreset = (preset: WarningPreset): Promise<boolean> =>
  putItem({ ...keys.warningPreset(preset.id), ...warningPresetItem.parse(preset) }, { ifAbsent: true });

export const warningPresetById = (id: string): Promise<WarningPreset | undefined> => getItem(keys.warningPreset(id), warningPresetItem, true);

/** Every preset, in Mastodon's `alphabetic` order: by title, then by text. */
export async function allWarningPresets(): Promise<WarningPreset[]> {
  const items = await queryAll(
    { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.warningPresetsPartition() }, ConsistentRead: true },
    warningPresetItem,
  );
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return items.sort((a, b) => order(a.title, b.title) || order(a.text, b.text));
}

/** Changes a preset's title and text; undefined when it does not exist (deleted meanwhile). */
export const updateWarningPreset = (id: string, change: Pick<WarningPreset, 'title' | 'text' | 'updatedAt'>): Promise<WarningPreset | undefined> =>
  updateItem(
    {
      Key: keys.warningPreset(id),
      UpdateExpression: 'SET title = :t, #text = :x, updatedAt = :u',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#text': 'text' },
      ExpressionAttributeValues: { ':t': change.title, ':x': change.text, ':u': change.updatedAt },
    },
    warningPresetItem,
  );

/** Deletes a preset; answers it, or undefined when it did not exist. */
export const deleteWarningPreset = (id: string): Promise<WarningPreset | undefined> =>
  deleteItem(keys.warningPreset(id), warningPresetItem, { ConditionExpression: 'attribute_exists(PK)' });
