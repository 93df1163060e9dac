import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { detector } from 'megalodon';
import { handler as hostMeta } from '../../functions/wellknown/host_meta';
import { handler as nodeinfoLinks } from '../../functions/wellknown/nodeinfo';
import { handler as nodeinfoDocument } from '../../functions/wellknown/nodeinfo_document';
import { handler as webfinger } from '../../functions/wellknown/webfinger';
import { updateInstanceSettings } from '../../lib/db/instance';
import * as keys from '../../lib/db/keys';
import { putItem } from '../../lib/db/table';
import { buildEvent, call, lambdaContext } from '../support/http';
import { aUser } from '../support/factories';

const finger = (resource?: string | string[]) =>
  call(webfinger, { path: '/.well-known/webfinger', query: resource === undefined ? undefined : Array.isArray(resource) ? { resource } : { resource } });

describe('GET /.well-known/webfinger', () => {
  let username: string;
  beforeAll(async () => {
    username = (await aUser()).account.username;
  });

  const expectJrd = (res: Awaited<ReturnType<typeof finger>>) => {
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/jrd\+json/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body).toEqual({
      subject: `acct:${username}@social.example`,
      aliases: [`https://social.example/@${username}`, `https://social.example/users/${username}`],
      links: [
        { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: `https://social.example/@${username}` },
        { rel: 'self', type: 'application/activity+json', href: `https://social.example/users/${username}` },
      ],
    });
  };

  it.each([
    ['acct:user@domain', (u: string) => `acct:${u}@social.example`],
    ['user@domain', (u: string) => `${u}@social.example`],
    ['acct:user', (u: string) => `acct:${u}`],
    ['the profile page URL', (u: string) => `https://social.example/@${u}`],
    ['the actor URL', (u: string) => `https://social.example/users/${u}`],
    ['another letter case', (u: string) => `acct:${u.toUpperCase()}@SOCIAL.EXAMPLE`],
  ])('finds a local account by %s', async (_name, resource) => {
    expectJrd(await finger(resource(username)));
  });

  it.each([
    ['an unknown user', () => 'acct:nobody_at_all@social.example'],
    ['a remote account', () => `acct:${username}@mastodon.social`],
    ['a URL on another host', () => `https://mastodon.social/@${username}`],
    ['a URL that is not a profile', () => 'https://social.example/about'],
    ['an invalid username', () => 'acct:no spaces@social.example'],
  ])('answers 404 {"error"} for %s', async (_name, resource) => {
    const res = await finger(resource());
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it.each([
    ['a missing resource', undefined],
    ['an empty resource', ''],
    ['a bare word', 'someone'],
    ['a broken URL', 'https://'],
    ['an oversized resource', `acct:${'a'.repeat(600)}@social.example`],
  ])('answers 400 {"error"} for %s', async (_name, resource) => {
    const res = await finger(resource);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});

describe('GET /.well-known/host-meta', () => {
  it('answers an XRD whose template points at WebFinger', async () => {
    const res = await call(hostMeta, { path: '/.well-known/host-meta' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/xrd\+xml/);
    expect(res.text).toContain('<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">');
    expect(res.text).toContain('<Link rel="lrdd" type="application/xrd+xml" template="https://social.example/.well-known/webfinger?resource={uri}"/>');
  });
});

describe('NodeInfo', () => {
  it('links /.well-known/nodeinfo to the 2.0 and 2.1 documents, 2.0 first', async () => {
    const res = await call(nodeinfoLinks, { path: '/.well-known/nodeinfo' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      links: [
        { rel: 'http://nodeinfo.diaspora.software/ns/schema/2.0', href: 'https://social.example/nodeinfo/2.0' },
        { rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1', href: 'https://social.example/nodeinfo/2.1' },
      ],
    });
  });

  it('describes the software, its usage and its registrations', async () => {
    await putItem({ ...keys.instanceStats(), userCount: 7, statusCount: 99, domainCount: 0 });
    await updateInstanceSettings({ registrationsMode: 'none', title: 'Nodes' });
    const res = await call(nodeinfoDocument, { path: '/nodeinfo/2.0' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.0#"');
    expect(res.body).toEqual({
      version: '2.0',
      software: { name: 'tootless', version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
      protocols: ['activitypub'],
      services: { outbound: [], inbound: [] },
      usage: { users: { total: 7, activeMonth: 0, activeHalfyear: 0 }, localPosts: 99 },
      openRegistrations: false,
      metadata: expect.objectContaining({ nodeName: 'Nodes', upstream: { name: 'mastodon', version: '4.6.0' } }),
    });
    // NodeInfo 2.0 schema: software.name is lower-case letters, digits and dashes.
    expect(res.body.software.name).toMatch(/^[a-z0-9-]+$/);
    await updateInstanceSettings({ registrationsMode: 'open' });
  });

  describe("megalodon's detector, over real HTTP", () => {
    let server: Server;
    let baseUrl: string;
    const previousBaseUrl = process.env.BASE_URL;
    /** Lets a test alter the NodeInfo document on its way out (a negative control). */
    let alter: ((doc: Record<string, unknown>) => Record<string, unknown>) | undefined;
    const routes: Record<string, typeof nodeinfoLinks> = {
      '/.well-known/nodeinfo': nodeinfoLinks,
      '/nodeinfo/2.0': nodeinfoDocument,
    };

    beforeAll(async () => {
      // A tiny API Gateway: each request becomes a payload v2 event for the matching handler.
      server = createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const route = routes[url.pathname];
        if (!route) {
          res.writeHead(404).end();
          return;
        }
        const headers = Object.fromEntries(Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : [])));
        const event = buildEvent({ method: req.method ?? 'GET', path: url.pathname, query: url.search.slice(1), headers });
        route(event, lambdaContext())
          .then((out) => {
            let body = out.isBase64Encoded ? Buffer.from(out.body ?? '', 'base64') : Buffer.from(out.body ?? '');
            if (alter && url.pathname === '/nodeinfo/2.0') body = Buffer.from(JSON.stringify(alter(JSON.parse(body.toString('utf8')))));
            res.writeHead(out.statusCode ?? 200, Object.fromEntries(Object.entries(out.headers ?? {}).map(([k, v]) => [k, String(v)])));
            res.end(body);
          })
          .catch(() => res.writeHead(502).end());
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      process.env.BASE_URL = baseUrl;
    });

    afterAll(async () => {
      process.env.BASE_URL = previousBaseUrl;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('recognises the server as Mastodon-compatible', async () => {
      await expect(detector(baseUrl)).resolves.toBe('mastodon');
    });

    it('relies on metadata.upstream: without it the same server is unknown to it', async () => {
      alter = (doc) => ({ ...doc, metadata: {} });
      try {
        await expect(detector(baseUrl)).rejects.toThrow(/Unknown SNS/);
      } finally {
        alter = undefined;
      }
    });
  });
});
