// What remote content can make us store and serve (issue 25, finding 2): for maximal Notes of each kind of text
// (control characters, which JSON escapes to six bytes each; `<`, four bytes in HTML; CJK; four-byte emoji), the
// status item (bytes, DynamoDB's measure, lib/db/item_size.ts), a public-timeline page of 20 such statuses and
// one stream event (bytes of JSON), before (b0d7161: HTML refused beyond 100,000 UTF-16 units, controls kept,
// text stored beside it) and now (lib/federation/notes.ts readNote: controls removed, HTML and text cut to
// 100,000 bytes). Pure: no emulator; the page and event are the statuses' `content` and `spoiler_text` as JSON
// plus 1,500 bytes for the rest of a rendered status (ingest alone: the pages cap of issue 25 is apart).
// Usage: npm run bench:remote-content
import sanitizeHtml from 'sanitize-html';
import type { Account } from '../lib/db/accounts';
import { itemSize } from '../lib/db/item_size';
import { statusRecord } from '../lib/db/statuses';
import { readNote, remoteStatusText } from '../lib/federation/notes';
import { printTable } from './lib';

const author = { id: '1', uri: 'https://remote.example/users/a', followersUrl: 'https://remote.example/users/a/followers', domain: 'remote.example' } as Account;
/** The rest of a rendered status (account, counters, urls...), about what ours carries. */
const REST_OF_A_STATUS = 1_500;

// The base's reading of a Note's content, for the "before" column (its sanitiser kept these <p> texts as they are).
const oldSanitize = (html: string) => sanitizeHtml(html, { allowedTags: ['p'], allowedAttributes: {} }).trim();
const oldText = (html: string) =>
  sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} }).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&').trim();

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const baseStatus = {
  id: '112233445566778899', accountId: '1', createdAt: new Date().toISOString(), reblogOfId: null, sensitive: true, visibility: 'public' as const,
  language: null, inReplyToId: null, inReplyToAccountId: null, conversationId: '112233445566778899', mentions: [], tags: [], mediaIds: [],
  pollId: null, applicationName: null, applicationWebsite: null, repliesCount: 0, reblogsCount: 0, favouritesCount: 0, editedAt: null,
  uri: 'https://remote.example/notes/1', url: null,
};

/** The largest text of one unit the base accepted: 100,000 UTF-16 units of sanitised HTML (a `<` is 4 of them). */
const cases = [
  { name: '\\u0001 (control)', unit: '\u0001', htmlUnits: 1 },
  { name: '< (escaped)', unit: '<', htmlUnits: 4 },
  { name: '中 (CJK)', unit: '中', htmlUnits: 1 },
  { name: '😀 (4-byte emoji)', unit: '😀', htmlUnits: 2 },
];

function measure(contentHtml: string, text: string, spoilerText: string) {
  const item = itemSize(statusRecord({ ...baseStatus, text, contentHtml, spoilerText }));
  const rendered = JSON.stringify({ content: contentHtml, spoiler_text: spoilerText }).length + REST_OF_A_STATUS;
  const renderedBytes = bytes(JSON.stringify({ content: contentHtml, spoiler_text: spoilerText })) + REST_OF_A_STATUS;
  // A stream event carries the status as a JSON string inside the event's JSON: escaped twice.
  const event = bytes(JSON.stringify({ event: 'update', payload: JSON.stringify({ content: contentHtml, spoiler_text: spoilerText }) })) + REST_OF_A_STATUS;
  return { item, page: 20 * Math.max(rendered, renderedBytes), event };
}

const rows = cases.flatMap(({ name, unit, htmlUnits }) => {
  const count = Math.floor((100_000 - 7) / htmlUnits / unit.length);
  const spoiler = unit.repeat(Math.floor(5_000 / unit.length));
  const raw = `<p>${unit === '<' ? '&lt;'.repeat(count) : unit.repeat(count)}</p>`;
  const oldHtml = oldSanitize(raw);
  const before = measure(oldHtml, oldText(oldHtml), oldText(spoiler));
  const read = readNote({ id: 'https://remote.example/notes/1', type: 'Note', attributedTo: author.uri, to: ['https://www.w3.org/ns/activitystreams#Public'], content: raw, summary: spoiler }, author)!;
  const after = measure(read.contentHtml, remoteStatusText(read.contentHtml), read.spoilerText);
  const fmt = (n: number) => n.toLocaleString('en-US');
  return [
    { content: name, when: 'before', 'status item (B)': fmt(before.item), 'over 400 KB': before.item > 409_600 ? 'yes' : 'no', 'page of 20 (B)': fmt(before.page), 'stream event (B)': fmt(before.event) },
    { content: name, when: 'after', 'status item (B)': fmt(after.item), 'over 400 KB': after.item > 409_600 ? 'yes' : 'no', 'page of 20 (B)': fmt(after.page), 'stream event (B)': fmt(after.event) },
  ];
});
printTable(rows);
