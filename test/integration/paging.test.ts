// One paging module: the range a page reads and the answer every list endpoint gives.
import { pageReply } from '../../lib/http/page';
import { edgesOf, pageQuery, pageRange } from '../../lib/paging';

const pad = (id: string) => id.padStart(20, '0');

describe('a page request', () => {
  it('falls back to the endpoint\'s limit, and holds an asked limit between 1 and its maximum', () => {
    const query = pageQuery(20, 40);
    expect(query.parse({}).limit).toBe(20);
    expect(query.parse({ limit: '0' }).limit).toBe(1);
    expect(query.parse({ limit: '500' }).limit).toBe(40);
  });

  it('refuses an id that is not a decimal id', () => {
    expect(pageQuery().safeParse({ max_id: 'abc' }).success).toBe(false);
  });
});

describe('the range of a page', () => {
  it('reads below max_id, newest first', () => {
    expect(pageRange({ max_id: '100' })).toEqual({ hi: pad('99'), ascending: false });
  });

  it('reads upwards from min_id, which wins over since_id as in Mastodon', () => {
    expect(pageRange({ min_id: '10', since_id: '50', max_id: '100' })).toEqual({ lo: pad('11'), hi: pad('99'), ascending: true });
  });

  it('reads downwards to since_id', () => {
    expect(pageRange({ since_id: '10' })).toEqual({ lo: pad('11'), ascending: false });
  });

  it('is empty when nothing lies strictly between the bounds', () => {
    expect(pageRange({ max_id: '0' })).toBeUndefined();
    expect(pageRange({ min_id: '5', max_id: '6' })).toBeUndefined();
    expect(pageRange({ since_id: '99999999999999999999' })).toBeUndefined();
  });
});

describe('the answer of a list endpoint', () => {
  const ctx = { path: '/api/v1/blocks', query: { limit: '2', max_id: '7' } };

  it('links the older page from its oldest item and the newer page from its newest', () => {
    const reply = pageReply(ctx, edgesOf([{ id: '30' }, { id: '20' }]), ['a', 'b']);
    expect(reply.status).toBe(200);
    expect(JSON.parse(String(reply.body))).toEqual(['a', 'b']);
    expect(reply.headers.Link).toMatch(/<[^>]*\/api\/v1\/blocks\?limit=2&max_id=20>; rel="next", <[^>]*\/api\/v1\/blocks\?limit=2&min_id=30>; rel="prev"$/);
  });

  it('sends no Link header for an empty page', () => {
    const reply = pageReply(ctx, edgesOf([]), []);
    expect(reply.headers).not.toHaveProperty('Link');
  });
});
