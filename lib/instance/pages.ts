// The server's own web pages that the instance entity points clients to (`configuration.urls`, Mastodon 4.4):
// about, privacy policy, terms of service. Plain pages, as the profile pages (lib/federation/pages.ts). The
// operator's texts are HTML they wrote (the description) or HTML sanitised when published (the documents); a
// Content-Security-Policy allowing no script, frame or outside resource holds them to text and links.
import { config } from '../config';
import type { InstanceSettings } from '../db/instance';
import { html, type Reply } from '../http';
import { escapeHtml } from '../text/html';
import { withDomain, type ServedPrivacyPolicy, type ServedTerms } from './legal';

export const ABOUT_PATH = '/about';
export const PRIVACY_POLICY_PATH = '/privacy-policy';
export const TERMS_OF_SERVICE_PATH = '/terms-of-service';

const STYLE = `body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#222}
nav{display:flex;gap:1rem;font-size:.9rem}.meta{color:#666;font-size:.9rem}`;

function page(title: string, settings: InstanceSettings, body: string): Reply {
  const links = [
    `<a href="${ABOUT_PATH}">About</a>`,
    `<a href="${PRIVACY_POLICY_PATH}">Privacy policy</a>`,
    ...(settings.termsDates.length > 0 ? [`<a href="${TERMS_OF_SERVICE_PATH}">Terms of service</a>`] : []),
  ];
  const document = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`${title} - ${settings.title}`)}</title>
<style>${STYLE}</style>
</head>
<body>
<nav>${links.join('')}</nav>
${body}
</body>
</html>
`;
  return html(document, 200, {
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    'Cache-Control': 'public, max-age=180',
  });
}

/** What the server is: its title, descriptions, rules and contact. */
export function aboutPage(settings: InstanceSettings): Reply {
  const rules = settings.rules.length === 0 ? '' : `<h2>Rules</h2>\n<ol>${settings.rules.map((r) => `<li>${escapeHtml(r.text)}</li>`).join('')}</ol>`;
  const contact = settings.contactEmail ? `<p class="meta">Contact: <a href="mailto:${escapeHtml(settings.contactEmail)}">${escapeHtml(settings.contactEmail)}</a></p>` : '';
  const body = `<h1>${escapeHtml(settings.title)}</h1>
<p>${escapeHtml(settings.shortDescription)}</p>
<section>${settings.description}</section>
${rules}
${contact}
<p class="meta">${escapeHtml(config.domain)} runs tootless, Mastodon-compatible software.</p>`;
  return page('About', settings, body);
}

export function privacyPolicyPage(settings: InstanceSettings, policy: ServedPrivacyPolicy): Reply {
  const body = `<h1>Privacy policy</h1>
<p class="meta">Last updated ${escapeHtml(policy.updatedAt.slice(0, 10))}</p>
${withDomain(policy.contentHtml)}`;
  return page('Privacy policy', settings, body);
}

export function termsPage(settings: InstanceSettings, terms: ServedTerms): Reply {
  const { effectiveDate } = terms.version;
  const when = terms.effective ? `In effect since ${effectiveDate}` : `In effect from ${effectiveDate}`;
  const next = terms.succeededBy ? `; replaced by <a href="${TERMS_OF_SERVICE_PATH}/${escapeHtml(terms.succeededBy)}">the terms in effect from ${escapeHtml(terms.succeededBy)}</a>` : '';
  const body = `<h1>Terms of service</h1>
<p class="meta">${escapeHtml(when)}${next}</p>
${withDomain(terms.version.contentHtml)}`;
  return page('Terms of service', settings, body);
}
