// DELETE /api/v1/statuses/:id through the fan-out worker to the streams: the
// queued message says what the status was, so `delete` reaches the hashtag
// streams of a public tagged status and never the public streams for a private one.
import { handler as remove } from '../../functions/statuses/delete';
import { handler as create } from '../../functions/statuses/create';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { registerInlineWorker } from '../../lib/queue';
import { aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';
import { connectThroughHandler, useManagementApi } from '../support/management-api';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

type Frame = { stream: string[]; event: string; payload?: string };
const frames: { connectionId: string; frame: Frame }[] = [];
// Stands in for the API Gateway Management API: records each postToConnection.
useManagementApi((req, res) => {
  const id = req.connectionId;
  if (id) frames.push({ connectionId: id, frame: JSON.parse(req.body.toString('utf8')) as Frame });
  res.writeHead(id ? 200 : 404).end();
});

const listen = (query: Record<string, string>) => connectThroughHandler(undefined, query);

const post = async (user: UserFixture, json: Record<string, unknown>) => {
  const res = await call(create, { method: 'POST', path: '/api/v1/statuses', json, token: user.token });
  expect(res.status).toBe(200);
  return String(res.body.id);
};
const del = async (user: UserFixture, id: string) => {
  const res = await call(remove, { method: 'DELETE', path: `/api/v1/statuses/${id}`, pathParameters: { id }, token: user.token });
  expect(res.status).toBe(200);
};
const deletesOn = (connectionId: string) => frames.filter((f) => f.connectionId === connectionId && f.frame.event === 'delete').map((f) => f.frame);

describe('delete events from DELETE /api/v1/statuses/:id', () => {
  it('reach the hashtag stream of a deleted public tagged status, and public streams only for public ones', async () => {
    const author = await aUser();
    const tag = `gone${Date.now().toString(36)}`;
    const hashtag = await listen({ stream: 'hashtag', tag });
    const pub = await listen({ stream: 'public' });

    const tagged = await post(author, { status: `bye #${tag}` });
    const secret = await post(author, { status: `quiet #${tag}`, visibility: 'private' });
    await del(author, tagged);
    await del(author, secret);

    expect(deletesOn(hashtag)).toEqual([{ stream: ['hashtag', tag], event: 'delete', payload: tagged }]);
    expect(deletesOn(pub).map((f) => f.payload)).toContain(tagged);
    expect(deletesOn(pub).map((f) => f.payload)).not.toContain(secret);
  });
});
