// Issue 12's "Done when": `activitypub-testing test actor <our actor URL>` (socialweb.coop's
// ActivityPub test suite, the npm package) reports no failure for the actor of a user made
// through the API on the local stack. The suite fetches only what the actor names (the actor
// with `Accept: application/ld+json; profile=...`, its inbox, outbox, followers, following,
// ...), all on the local stack: it needs no network. Its results are read as json-seq
// (RFC 7464), one EARL assertion per test: `result.outcome` passed / failed / inapplicable / ...
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { newUser, type MastoUser } from '../support/masto';
import { useStack } from '../support/stack';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = `${root}node_modules/.bin/activitypub-testing`;

const stack = useStack();

type Assertion = { test?: { slug?: string; name?: string }; result?: { outcome?: string; info?: string } };

/** The json-seq records: each begins with ASCII RS (0x1e) and ends with a line feed. */
const parseJsonSeq = (text: string): Assertion[] =>
  text
    .split('\u001e')
    .map((record) => record.trim())
    .filter((record) => record !== '')
    .map((record) => JSON.parse(record) as Assertion);

async function testActor(actorUrl: string): Promise<Assertion[]> {
  const { stdout } = await run(cli, ['test', 'actor', actorUrl, '--output=json-seq'], {
    cwd: root,
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
    // Each test's own time limit: the stack's first answers (cold handlers) can take a few seconds.
    env: { ...process.env, ACTIVITYPUB_TESTING_DEFAULT_TEST_TIME_LIMIT: 'T60S' },
  });
  return parseJsonSeq(stdout);
}

describe('activitypub-testing on our actor', () => {
  let user: MastoUser;

  beforeAll(async () => {
    user = await newUser(stack().baseUrl, 'aptest');
    // Something in each collection the suite looks at: a public post and a followed account.
    await user.client.v1.statuses.create({ status: 'hello from the test suite', visibility: 'public' });
    const other = await newUser(stack().baseUrl, 'apother');
    await user.client.v1.accounts.$select(other.me.id).follow();
  }, 120_000);

  it('reports no failure, and passes the tests that apply to a Mastodon-style actor', async () => {
    const actorUrl = `${stack().baseUrl}/users/${user.me.username}`;
    const assertions = await testActor(actorUrl);
    const outcomes = Object.fromEntries(assertions.map((a) => [a.test?.slug ?? a.test?.name ?? '?', a.result?.outcome ?? '?']));
    process.stdout.write(`activitypub-testing on ${actorUrl}:\n${JSON.stringify(outcomes, null, 2)}\n`);

    expect(assertions.length).toBeGreaterThan(0);
    const failed = assertions.filter((a) => a.result?.outcome === 'failed');
    expect(failed.map((a) => `${a.test?.slug}: ${a.result?.info ?? ''}`)).toEqual([]);
    // The tests our documents are for must have run and passed, not been skipped as inapplicable.
    for (const slug of [
      'actor-must-serve-as2-object-to-get',
      'actor-objects-must-have-inbox-outbox-properties',
      'outbox-must-be-an-orderedcollection',
      'followers-collection-must-be-a-collection',
      'following-collection-must-be-a-collection',
    ]) {
      expect({ slug, outcome: outcomes[slug] }).toEqual({ slug, outcome: 'passed' });
    }
  }, 180_000);

  // The profile routes are `GET /{handle}` and `GET /{handle}/{id}`: the gateway must still prefer every static route.
  it('routes the profile URLs, the instance actor and NodeInfo 2.1 through the gateway, beside the static routes', async () => {
    const base = stack().baseUrl;
    const { username } = user.me;
    const page = await fetch(`${base}/@${username}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('hello from the test suite');

    const person = await fetch(`${base}/@${username}`, { headers: { accept: 'application/activity+json' } });
    expect(person.headers.get('content-type')).toBe('application/activity+json; charset=utf-8');
    expect(await person.json()).toMatchObject({ id: `${base}/users/${username}`, type: 'Person' });

    const [status] = await user.client.v1.accounts.$select(user.me.id).statuses.list();
    const note = await fetch(`${base}/@${username}/${status!.id}`, { headers: { accept: 'application/activity+json' } });
    expect(await note.json()).toMatchObject({ type: 'Note', id: `${base}/users/${username}/statuses/${status!.id}` });
    const statusHtml = await fetch(`${base}/@${username}/${status!.id}`);
    expect(await statusHtml.text()).toContain('hello from the test suite');

    const actor = await fetch(`${base}/actor`, { headers: { accept: 'application/activity+json' } });
    expect(await actor.json()).toMatchObject({ type: 'Application', id: `${base}/actor` });
    const nodeinfo = await fetch(`${base}/nodeinfo/2.1`);
    expect(await nodeinfo.json()).toMatchObject({ version: '2.1', protocols: ['activitypub'] });
    const finger = await fetch(`${base}/.well-known/webfinger?resource=${encodeURIComponent(`acct:${username}@${new URL(base).host}`)}`);
    expect(await finger.json()).toMatchObject({ links: expect.arrayContaining([{ rel: 'self', type: 'application/activity+json', href: `${base}/users/${username}` }]) });

    // Static routes of one and two segments still answer as before.
    expect((await fetch(`${base}/api/v1/instance`)).status).toBe(200);
    expect((await fetch(`${base}/oauth/authorize`)).status).not.toBe(404);
    const notAProfile = await fetch(`${base}/favicon.ico`);
    expect(notAProfile.status).toBe(404);
  }, 60_000);

  it('is a negative control: the suite does report a failure, for a URL that serves no ActivityPub document', async () => {
    const assertions = await testActor(`${stack().baseUrl}/.well-known/host-meta`);
    expect(assertions.some((a) => a.result?.outcome === 'failed')).toBe(true);
  }, 180_000);
});
