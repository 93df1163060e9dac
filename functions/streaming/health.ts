// GET /api/v1/streaming/health (https://docs.joinmastodon.org/methods/streaming/#health): `OK` while streaming works.
import { streamHttp, type StreamOut } from '../../lib/http/stream';

export async function run(_input: unknown, _ctx: unknown, out: StreamOut): Promise<void> {
  out.header('Content-Type', 'text/plain');
  await out.write('OK');
}

export const handler = streamHttp(run, { auth: 'public' });
