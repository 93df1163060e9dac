// The warning presets (Mastodon's admin/warning_presets): the list with a form to add one, an edit page per
// preset, and a delete button. Every change goes through lib/moderation/warning_presets.ts (manage_settings, the
// validations, the audit entry); the account and report pages offer the presets in their action form.
import { z } from 'zod';
import type { WarningPreset } from '../db/warning_presets';
import type { Reply } from '../http/reply';
import { addWarningPreset, changeWarningPreset, listWarningPresets, PRESET_TEXT_MAX, PRESET_TITLE_MAX, removeWarningPreset, warningPresetToEdit } from '../moderation/warning_presets';
import { asPage, canonicalId, notFoundPage } from './common';
import { adminPage, adminPath, csrfField, esc, messagePage, noticeOf, seeOther, type Viewer } from './layout';

const NOTICES: Record<string, string> = { created: 'The preset is added.', updated: 'The preset is saved.', removed: 'The preset is deleted.' };

const LIST = '/warning_presets';

/** The title and text fields, filled with a preset's when editing one. */
const fields = (preset?: Pick<WarningPreset, 'title' | 'text'>) => `<label for="title">Title (optional)</label>
<input type="text" id="title" name="title" maxlength="${PRESET_TITLE_MAX}" value="${esc(preset?.title ?? '')}">
<label for="text">Text</label>
<textarea id="text" name="text" rows="4" required maxlength="${PRESET_TEXT_MAX}">${esc(preset?.text ?? '')}</textarea>`;

/** GET /admin/warning_presets */
export async function warningPresetsPage(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const presets = await listWarningPresets(viewer.account);
  const action = adminPath(LIST);
  const rows = presets
    .map((p) => `<tr id="warning-preset-${esc(p.id)}">
<td>${p.title ? esc(p.title) : '<span class="muted">(no title)</span>'}</td>
<td class="comment">${esc(p.text)}</td>
<td><a href="${esc(adminPath(`${LIST}/${p.id}`))}">Edit</a>
<form method="post" action="${esc(action)}" class="inline">
${csrfField(viewer.csrf)}
<input type="hidden" name="id" value="${esc(p.id)}">
<button type="submit" name="operation" value="remove" class="secondary">Delete</button>
</form></td>
</tr>`)
    .join('\n');
  const body = `${noticeOf(NOTICES, input)}
<p class="muted">Texts moderators may choose when they warn or sanction an account; the text they add is joined after the preset's.</p>
${presets.length === 0 ? '<p id="empty">No warning preset yet.</p>' : `<table id="warning-presets">
<thead><tr><th>Title</th><th>Text</th><th></th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`}
<h2>Add a preset</h2>
<form method="post" action="${esc(action)}">
${csrfField(viewer.csrf)}
<input type="hidden" name="operation" value="add">
${fields()}
<div class="actions"><button type="submit" class="primary">Add</button></div>
</form>`;
  return adminPage(viewer, 'Warning presets', body);
}

const text = z.string().max(100_000).optional();
const added = z.object({ operation: z.literal('add'), title: text, text });
const removed = z.object({ operation: z.literal('remove'), id: z.string().max(30) });

/** POST /admin/warning_presets: add a preset, or delete one by id. */
export async function submitWarningPresets(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const back = adminPath(LIST);
  if (input.operation === 'remove') {
    const form = removed.safeParse(input);
    const id = form.success ? canonicalId(form.data.id) : undefined;
    if (!id) return notFoundPage(viewer, 'This warning preset', back);
    return asPage(viewer, back, async () => {
      await removeWarningPreset(viewer.account, id);
      return seeOther(back, 'removed');
    });
  }
  const form = added.safeParse(input);
  if (!form.success) return messagePage(viewer, 422, 'Not done', 'Give the preset a text (and a title if you like).', back);
  return asPage(viewer, back, async () => {
    await addWarningPreset(viewer.account, { title: form.data.title, text: form.data.text });
    return seeOther(back, 'created');
  });
}

/** GET /admin/warning_presets/:id: the edit form. */
export async function warningPresetPage(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const back = adminPath(LIST);
  const id = canonicalId(input.id);
  if (!id) return notFoundPage(viewer, 'This warning preset', back);
  return asPage(viewer, back, async () => {
    const preset = await warningPresetToEdit(viewer.account, id);
    const body = `<form method="post" action="${esc(adminPath(`${LIST}/${preset.id}`))}">
${csrfField(viewer.csrf)}
<input type="hidden" name="operation" value="update">
${fields(preset)}
<div class="actions"><button type="submit" class="primary">Save</button></div>
</form>
<p><a href="${esc(back)}">Back to the presets</a></p>`;
    return adminPage(viewer, 'Edit a warning preset', body);
  });
}

const updated = z.object({ operation: z.literal('update'), title: text, text });

/** POST /admin/warning_presets/:id: save the edited title and text. */
export async function submitWarningPreset(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const list = adminPath(LIST);
  const id = canonicalId(input.id);
  if (!id) return notFoundPage(viewer, 'This warning preset', list);
  const back = adminPath(`${LIST}/${id}`);
  const form = updated.safeParse(input);
  if (!form.success) return messagePage(viewer, 422, 'Not done', 'Give the preset a text (and a title if you like).', back);
  return asPage(viewer, back, async () => {
    await changeWarningPreset(viewer.account, id, { title: form.data.title, text: form.data.text });
    return seeOther(list, 'updated');
  });
}
