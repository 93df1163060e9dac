// The deploy's smoke test: the stage reached through its one URL as a Mastodon app reaches an instance.
//   SMOKE_ACCESS_TOKEN=<a user token> npx tsx infra/deploy/smoke.ts https://<the stage's URL>
// The deploy workflow runs it after each deploy (the token from `npm run admin -- accounts token`); the
// local stack's end-to-end test runs it against `npm start`'s origin (test/e2e/one-origin.test.ts). It checks:
//   - the instance answers, compressed, and names its own URL as the streaming API;
//   - a WebSocket subscription (masto's streaming client, at /api/v1/streaming) and a server-sent-event
//     stream (/api/v1/streaming/user) each receive a post made after they opened;
//   - the post's media attachment is served from the same origin, under /system/;
// then deletes the post and its attachment. Exits 0 when all held, else 1 naming what failed.
import { createRestAPIClient, createStreamingAPIClient } from 'masto';

/** A 1x1 PNG. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNk+A8AAQUBAScY42YAAAAASUVORK5CYII=', 'base64');
const WAIT_MS = 30_000;

const within = <T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`timed out after ${ms} ms: ${what}`)), ms).unref())]);

function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(what);
}

/** Reads a server-sent-event stream until an `update` of a status that `wanted` accepts. */
async function sseUpdate(res: Response, wanted: (id: string) => boolean, stop: AbortSignal): Promise<void> {
  check(res.ok && res.body, `the SSE stream answered ${res.status}`);
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done || stop.aborted) throw new Error('the SSE stream ended before the post arrived');
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: ?(.*)$/m.exec(block)?.[1];
        const data = /^data: ?(.*)$/m.exec(block)?.[1];
        const id = event === 'update' && data ? (JSON.parse(data) as { id?: string }).id : undefined;
        if (id && wanted(id)) return;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

export async function smoke(baseUrl: string, token: string, say: (line: string) => void = console.log): Promise<void> {
  const origin = new URL(baseUrl).origin;

  const instanceRes = await fetch(`${origin}/api/v2/instance`, { headers: { 'accept-encoding': 'br, gzip' } });
  check(instanceRes.status === 200, `GET /api/v2/instance answered ${instanceRes.status}`);
  const encoding = instanceRes.headers.get('content-encoding');
  check(encoding === 'br' || encoding === 'gzip', `GET /api/v2/instance came uncompressed (Content-Encoding: ${encoding})`);
  const instance = (await instanceRes.json()) as { domain: string; configuration?: { urls?: { streaming?: string } } };
  const streamingApi = instance.configuration?.urls?.streaming ?? '';
  check(streamingApi && new URL(streamingApi).host === new URL(origin).host, `configuration.urls.streaming is '${streamingApi}', not this origin`);
  say(`instance ${instance.domain}: answered (${encoding}), streaming at ${streamingApi}`);

  const client = createRestAPIClient({ url: origin, accessToken: token });
  const me = await client.v1.accounts.verifyCredentials();
  say(`signed in as @${me.acct}`);

  // A stream may take a moment to be subscribed on the server: posts are made until both received one, as a
  // person would post again (at most 8, 3 s apart), and all of them are deleted at the end.
  const posted: string[] = [];
  const stopSse = new AbortController();
  const streaming = createStreamingAPIClient({ streamingApiUrl: streamingApi, accessToken: token, retry: 3 });
  try {
    let onWs = false;
    let onSse = false;
    const wsDone = (async () => {
      for await (const event of streaming.user.subscribe()) {
        if (event.event === 'update' && posted.includes(event.payload.id)) return (onWs = true);
      }
      throw new Error('the WebSocket subscription ended before a post arrived');
    })();
    const sseRes = await fetch(`${origin}/api/v1/streaming/user`, { headers: { authorization: `Bearer ${token}` }, signal: stopSse.signal });
    const sseDone = sseUpdate(sseRes, (id) => posted.includes(id), stopSse.signal).then(() => (onSse = true));
    wsDone.catch(() => undefined);
    sseDone.catch(() => undefined);

    const media = await client.v2.media.create({ file: new Blob([PIXEL], { type: 'image/png' }), description: 'tootless smoke test' });
    const first = await client.v1.statuses.create({ status: `tootless smoke test ${new Date().toISOString()}`, visibility: 'private', mediaIds: [media.id] });
    posted.push(first.id);
    for (let attempt = 1; !(onWs && onSse) && attempt < 8; attempt++) {
      await Promise.race([Promise.all([wsDone, sseDone]), new Promise((r) => setTimeout(r, 3_000))]);
      if (!(onWs && onSse)) posted.push((await client.v1.statuses.create({ status: `tootless smoke test, again (${attempt})`, visibility: 'private' })).id);
    }
    await within(wsDone, 'a post on the WebSocket subscription');
    say(`the WebSocket subscription received a post (${posted.length} made)`);
    await within(sseDone, 'a post on the SSE stream');
    say('the SSE stream received a post');
    const status = first;

    const url = status.mediaAttachments[0]?.url ?? '';
    check(url.startsWith(`${origin}/system/`), `the attachment's URL ${url} is not under ${origin}/system/`);
    const file = await fetch(url);
    check(file.status === 200, `GET ${url} answered ${file.status}`);
    check(Buffer.from(await file.arrayBuffer()).length > 0, `GET ${url} answered an empty body`);
    say(`the attachment is served at ${url} (${file.headers.get('content-type')})`);
  } finally {
    stopSse.abort();
    streaming.close();
    for (const id of posted) await client.v1.statuses.$select(id).remove().catch(() => undefined);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [baseUrl] = process.argv.slice(2);
  const token = process.env.SMOKE_ACCESS_TOKEN;
  if (!baseUrl || !token) {
    console.error('usage: SMOKE_ACCESS_TOKEN=<token> tsx infra/deploy/smoke.ts <base url>');
    process.exit(2);
  }
  smoke(baseUrl, token).then(
    () => console.log('smoke test passed'),
    (err: unknown) => {
      console.error(`smoke test failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
