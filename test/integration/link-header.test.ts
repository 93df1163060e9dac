// The Link header of a list answer carries the request's own parameters, as Mastodon's
// does, but never the token and never an unbounded amount of the query.
import { handler as following } from '../../functions/accounts/following';
import { linkHeader } from '../../lib/paging';
import { aFollow, aUser } from '../support/factories';
import { call } from '../support/http';

describe('the Link header', () => {
  it('carries the endpoint\'s filters into both links, without the paging ids or the token', () => {
    const link = linkHeader('/api/v1/notifications', { 'types': ['mention', 'follow'], limit: '5', max_id: '9', access_token: 'secret' }, { newest: '20', oldest: '10' });
    expect(link).toContain('types%5B%5D=mention&types%5B%5D=follow&limit=5&max_id=10>; rel="next"');
    expect(link).toContain('min_id=20>; rel="prev"');
    expect(link).not.toContain('secret');
    expect(link).not.toContain('max_id=9');
  });

  it('leaves out a parameter too long for any endpoint, so a 9,000-character query gives a short header', async () => {
    const a = await aUser();
    const b = await aUser();
    await aFollow(a.account, b.account);
    const res = await call(following, {
      path: `/api/v1/accounts/${a.account.id}/following`,
      pathParameters: { id: a.account.id },
      query: { q: 'x'.repeat(9000), limit: '5' },
      token: a.token,
    });
    expect(res.status).toBe(200);
    expect(res.headers.link).toContain('limit=5');
    expect(res.headers.link?.length).toBeLessThan(1000);
  });

  it('carries at most 20 parameters', () => {
    const query = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`p${i}`, 'v']));
    const link = linkHeader('/api/v1/favourites', query, { newest: '2', oldest: '1' }) ?? '';
    const next = link.split(', ')[0] ?? '';
    expect((next.match(/p\d+=v/g) ?? []).length).toBe(20);
  });
});
