// Offset-paged lists held to what a Lambda response carries (lib/http/page.ts fittingPrefix): a search
// whose statuses are large remote ones is shortened by size, and clients go on at offset plus the count.
import { handler as search } from '../../functions/search/v2';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { writeSearchIndex } from '../../lib/db/search';
import { LAMBDA_RESPONSE_PAYLOAD_BYTES } from '../../lib/http/limits';
import { newId } from '../../lib/ids';
import { sqsEvent } from '../../lib/queue';
import { buildEvent, lambdaContext } from '../support/http';
import { aPostedStatus, aRemoteAccount, aUser, type UserFixture } from '../support/factories';

const COUNT = 24;
const largeContent = (n: number) => `<p>quagmirezz ${`<a href="https://remote.example/tags/t${n}" rel="nofollow noopener" class="mention hashtag">#t${n}</a> `.repeat(2_500)}</p>`;

describe('GET /api/v2/search with large remote statuses', () => {
  let reader: UserFixture;
  const ids: string[] = [];

  beforeAll(async () => {
    reader = await aUser();
    const remote = await aRemoteAccount({ domain: 'large-search.example' });
    const base = Date.now() - 60_000;
    for (let i = 0; i < COUNT; i++) {
      const id = newId(base + i);
      const status = await aPostedStatus(remote.account, {
        id,
        uri: `https://large-search.example/statuses/${id}`,
        url: `https://large-search.example/@x/${id}`,
        text: `quagmirezz ${i}`,
        contentHtml: largeContent(i),
        tags: [],
      });
      const res = await fanoutWorker(sqsEvent('fanout', [{ type: 'create', statusId: status.id }]));
      expect(res.batchItemFailures).toEqual([]);
      // Indexed as the posting path indexes a status anyone may find by its words.
      await writeSearchIndex(status, true);
      ids.push(status.id);
    }
  }, 120_000);

  it('answers the statuses shortened under the limit, and offset pages walk every one once', async () => {
    const seen: string[] = [];
    let pages = 0;
    while (seen.length < COUNT && pages <= COUNT) {
      const query = { q: 'quagmirezz', type: 'statuses', limit: '40', offset: String(seen.length) };
      const result = await search(buildEvent({ path: '/api/v2/search', query, token: reader.token }), lambdaContext());
      expect(result.statusCode).toBe(200);
      expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(LAMBDA_RESPONSE_PAYLOAD_BYTES);
      const body = JSON.parse(result.body ?? '{}') as { statuses: { id: string }[] };
      if (pages === 0) expect(body.statuses.length).toBeLessThan(COUNT);
      if (body.statuses.length === 0) break;
      seen.push(...body.statuses.map((s) => s.id));
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual([...ids].reverse());
  }, 60_000);
});
