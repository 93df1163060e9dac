// The headless Chromium of the browser suites (installed by .ci/run from Debian; CHROMIUM_PATH
// names another). Playwright gives it a fresh temporary profile; the flags keep it off the network.
// CorsNonWildcardRequestHeadersSupport makes Chromium follow the Fetch standard on `Authorization`
// (as Firefox does): a server answering `Access-Control-Allow-Headers: *` fails here as it does there.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install chromium)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--enable-features=CorsNonWildcardRequestHeadersSupport',
    ],
  });
}
