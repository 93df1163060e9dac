// The operator's documents (`npm run admin -- terms ...` and `privacy-policy ...`), as Mastodon's admin pages for
// the terms of service and the privacy policy: publish a version of the terms with its effective date, list them,
// withdraw one not yet in effect; set the privacy policy or go back to the default. A document is a Markdown file
// (Mastodon's format) or an HTML one; it is rendered and sanitised once, here (lib/instance/documents.ts).
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { allTermsVersions, deletePrivacyPolicy, deleteTermsVersion, putPrivacyPolicy, putTermsVersion, storedPrivacyPolicy, type DocumentFormat } from '../db/instance_documents';
import { DOCUMENT_MAX_BYTES, renderDocument } from '../instance/documents';
import { currentTermsDate, isCalendarDate, isInEffect, todayUtc } from '../instance/legal';
import { AdminError } from './commands';

export const DOCUMENTS_USAGE = `Terms of service and privacy policy (Markdown files, or HTML with --html or a .html name; %{domain} is the domain)
  terms publish <file> [--effective-date <YYYY-MM-DD>] [--html]
                                     publish a version of the terms of service, in effect from that date (today if none)
  terms list                         list the published versions
  terms remove <YYYY-MM-DD>          withdraw a version that is not yet in effect
  privacy-policy set <file> [--html] replace the privacy policy
  privacy-policy show                say whether the operator's policy or the default one is served, and when it changed
  privacy-policy reset               serve the default privacy policy again`;

export type DocumentFlags = { 'effective-date'?: string; html?: boolean };

/** Markdown unless the operator says HTML, by flag or by the file's name. */
const formatOf = (file: string, flags: DocumentFlags): DocumentFormat =>
  flags.html || ['.html', '.htm'].includes(extname(file).toLowerCase()) ? 'html' : 'markdown';

async function readDocument(file: string, flags: DocumentFlags): Promise<{ source: string; format: DocumentFormat; contentHtml: string }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new AdminError(`Cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (bytes.length > DOCUMENT_MAX_BYTES) throw new AdminError(`${file} is too large (${bytes.length} bytes; at most ${DOCUMENT_MAX_BYTES})`);
  const source = bytes.toString('utf8');
  const format = formatOf(file, flags);
  const contentHtml = renderDocument(source, format);
  if (contentHtml.replace(/<[^>]*>/g, '').trim() === '') throw new AdminError(`${file} has no text to publish`);
  return { source, format, contentHtml };
}

/**
 * Mastodon's rule for a new version's date: not before the latest version already in effect (today when none
 * is), and not a date another version has.
 */
export async function publishTermsCommand(file: string, flags: DocumentFlags): Promise<string> {
  const today = todayUtc();
  const date = flags['effective-date'] ?? today;
  if (!isCalendarDate(date)) throw new AdminError(`--effective-date must be a date written YYYY-MM-DD, not ${JSON.stringify(date)}`);
  const dates = (await allTermsVersions()).map((t) => t.effectiveDate);
  const minimum = dates.filter((d) => isInEffect(d, today)).at(-1) ?? today;
  if (date < minimum) throw new AdminError(`--effective-date can't be before ${minimum}`);
  if (dates.includes(date)) throw new AdminError(`A version of the terms already takes effect on ${date}`);
  const document = await readDocument(file, flags);
  const published = await putTermsVersion({ effectiveDate: date, ...document });
  if (!published) throw new AdminError(`A version of the terms already takes effect on ${date}`);
  return `Published the terms of service in effect ${isInEffect(date, today) ? 'from today' : `from ${date}`} (${document.format}, ${document.contentHtml.length} characters of HTML).`;
}

export async function listTermsCommand(): Promise<string> {
  const versions = await allTermsVersions();
  if (versions.length === 0) return 'No terms of service published.';
  const today = todayUtc();
  const current = currentTermsDate(versions.map((v) => v.effectiveDate), today);
  return versions
    .map((v) => {
      const state = v.effectiveDate === current ? 'current' : isInEffect(v.effectiveDate, today) ? 'past' : 'upcoming';
      return [v.effectiveDate, state, v.format, `published ${v.publishedAt}`].join('  ');
    })
    .join('\n');
}

/** Only a version not yet in effect: users may have agreed to one that is. */
export async function removeTermsCommand(date: string): Promise<string> {
  if (!isCalendarDate(date)) throw new AdminError(`The date must be written YYYY-MM-DD, not ${JSON.stringify(date)}`);
  if (isInEffect(date, todayUtc())) throw new AdminError(`The terms of ${date} are in effect already and stay published`);
  const removed = await deleteTermsVersion(date);
  if (!removed) throw new AdminError(`No terms of service take effect on ${date}`);
  return `Withdrew the terms of service of ${date}.`;
}

export async function setPrivacyPolicyCommand(file: string, flags: DocumentFlags): Promise<string> {
  const policy = await putPrivacyPolicy(await readDocument(file, flags));
  return `Set the privacy policy (${policy.format}, updated ${policy.updatedAt}).`;
}

export async function showPrivacyPolicyCommand(): Promise<string> {
  const stored = await storedPrivacyPolicy();
  return stored ? `The operator's privacy policy (${stored.format}), updated ${stored.updatedAt}:\n\n${stored.source}` : 'The default privacy policy is served.';
}

export async function resetPrivacyPolicyCommand(): Promise<string> {
  const removed = await deletePrivacyPolicy();
  return removed ? 'The default privacy policy is served again.' : 'The default privacy policy was already served.';
}

/** `terms <command>` and `privacy-policy <command>`; undefined for a command neither knows (the CLI then prints its usage). */
export async function documentsCommand(group: string, command: string | undefined, rest: string[], flags: DocumentFlags): Promise<string | undefined> {
  const [arg, ...extra] = rest;
  const noMore = (args: string[]) => {
    if (args.length > 0) throw new AdminError(`Unexpected argument ${JSON.stringify(args[0])}\n\n${DOCUMENTS_USAGE}`);
  };
  const need = (what: string) => {
    if (!arg) throw new AdminError(`Missing ${what}\n\n${DOCUMENTS_USAGE}`);
    noMore(extra);
    return arg;
  };
  const onlyFor = (allowed: (keyof DocumentFlags)[], where: string) => {
    const given = (Object.keys(flags) as (keyof DocumentFlags)[]).filter((k) => flags[k] !== undefined && !allowed.includes(k));
    if (given.length > 0) throw new AdminError(`--${given[0]} does not belong to \`${where}\`\n\n${DOCUMENTS_USAGE}`);
  };
  if (group === 'terms') {
    switch (command) {
      case 'publish':
        onlyFor(['effective-date', 'html'], 'terms publish');
        return publishTermsCommand(need('the file'), flags);
      case 'list':
        onlyFor([], 'terms list');
        noMore(rest);
        return listTermsCommand();
      case 'remove':
        onlyFor([], 'terms remove');
        return removeTermsCommand(need('the effective date'));
      default:
        return undefined;
    }
  }
  switch (command) {
    case 'set':
      onlyFor(['html'], 'privacy-policy set');
      return setPrivacyPolicyCommand(need('the file'), flags);
    case 'show':
      onlyFor([], 'privacy-policy show');
      noMore(rest);
      return showPrivacyPolicyCommand();
    case 'reset':
      onlyFor([], 'privacy-policy reset');
      noMore(rest);
      return resetPrivacyPolicyCommand();
    default:
      return undefined;
  }
}
