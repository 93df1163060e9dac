// Requests that used to stop the local stack or got an answer without a body, sent
// over raw sockets to `npm start`'s stack: each is answered with `{"error": ...}`,
// and the stack goes on answering.
import { connect } from 'node:net';
import { useStack } from '../support/stack';

const stack = useStack();

type RawAnswer = { status: number; headers: Record<string, string>; body: string };

/** Writes bytes as they are to the HTTP port and reads the answer until the server closes or the body is complete. */
function rawRequest(bytes: Buffer | string, timeoutMs = 20_000, to = stack().baseUrl): Promise<RawAnswer> {
  const { hostname, port } = new URL(to);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms: ${Buffer.concat(chunks).toString('latin1').slice(0, 500)}`));
    }, timeoutMs);
    const finish = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return false;
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      const body = text.slice(split + 4);
      const length = Number(headers['content-length'] ?? NaN);
      if (!Number.isNaN(length) && Buffer.byteLength(body) < length) return false;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
      return true;
    };
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      finish();
    });
    socket.on('end', () => {
      if (!finish()) {
        clearTimeout(timer);
        reject(new Error(`the connection ended without an answer: ${Buffer.concat(chunks).toString('latin1').slice(0, 500)}`));
      }
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.write(bytes);
  });
}

const host = () => new URL(stack().baseUrl).host;

async function expectStillServing() {
  const res = await fetch(`${stack().baseUrl}/api/v1/instance`);
  expect(res.status).toBe(200);
}

const expectJsonError = (answer: RawAnswer, status: number) => {
  expect({ status: answer.status, type: answer.headers['content-type'] }).toEqual({ status, type: expect.stringContaining('application/json') });
  expect(typeof JSON.parse(answer.body).error).toBe('string');
};

describe('the local stack under hostile requests', () => {
  it('answers a multipart body cut off inside a file part with 400, without a token, and keeps serving', async () => {
    const boundary = 'cut-off-boundary';
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\nhalf a file`,
      'binary',
    );
    for (const path of ['/api/v1/media', '/api/v2/media', '/api/v1/accounts/update_credentials', '/api/v1/statuses']) {
      const method = path.endsWith('update_credentials') ? 'PATCH' : 'POST';
      const answer = await rawRequest(Buffer.concat([
        Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`),
        body,
      ]));
      expectJsonError(answer, 400);
    }
    await expectStillServing();
  });

  it('answers a 64 KB query string with 431 and a JSON error', async () => {
    const answer = await rawRequest(`GET /api/v1/timelines/public?q=${'a'.repeat(64 * 1024)} HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`);
    expectJsonError(answer, 431);
    await expectStillServing();
  });

  it('answers a 64 KB query string followed by a 7 MB body with 431 and a JSON error, not a reset', async () => {
    const size = 7 * 1024 * 1024;
    const answer = await rawRequest(Buffer.concat([
      Buffer.from(`POST /api/v1/statuses?q=${'a'.repeat(64 * 1024)} HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`),
      Buffer.alloc(size, 0x20),
    ]));
    expectJsonError(answer, 431);
  });

  it('answers an oversized header block with 431 and a JSON error', async () => {
    const answer = await rawRequest(`GET /api/v1/instance HTTP/1.1\r\nHost: ${host()}\r\nX-Padding: ${'b'.repeat(12 * 1024)}\r\nConnection: close\r\n\r\n`);
    expectJsonError(answer, 431);
  });

  it('answers a malformed request line with 400 and a JSON error', async () => {
    const answer = await rawRequest(`GET /api/v1/instance HTTP/9 nonsense\r\n\r\n`);
    expectJsonError(answer, 400);
    await expectStillServing();
  });

  it('answers a body over Lambda\'s 6 MB request limit with 413 and a JSON error', async () => {
    const size = 6 * 1024 * 1024 + 1;
    const answer = await rawRequest(Buffer.concat([
      Buffer.from(`POST /api/v1/statuses HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n`),
      Buffer.alloc(size, 0x20),
    ]));
    expectJsonError(answer, 413);
    await expectStillServing();
  });

  it('answers an upload over what fits base64-encoded in 6 MB (4.5 MB) with 413', async () => {
    const size = 4.5 * 1024 * 1024 + 1;
    const answer = await rawRequest(Buffer.concat([
      Buffer.from(`POST /api/v2/media HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n`),
      Buffer.alloc(size, 0x20),
    ]));
    expectJsonError(answer, 413);
  });

  it('answers an Expect it does not know with 417 and a JSON error, after the body the client sends anyway', async () => {
    const answer = await rawRequest(`GET /api/v1/instance HTTP/1.1\r\nHost: ${host()}\r\nExpect: something-else\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    expectJsonError(answer, 417);
    const body = Buffer.alloc(6_600_007, 0x61);
    const large = await rawRequest(Buffer.concat([
      Buffer.from(`POST /api/v1/statuses HTTP/1.1\r\nHost: ${host()}\r\nExpect: something-else\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`),
      body,
    ]));
    expect([413, 417]).toContain(large.status);
    expect(typeof JSON.parse(large.body).error).toBe('string');
  });

  it('serves an HTTP/1.0 request that sends no Host', async () => {
    const answer = await rawRequest('GET /api/v1/instance HTTP/1.0\r\n\r\n');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ uri: expect.any(String) });
  });

  it('answers a GET carrying a body over 1 MB as it answers the GET', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(1100 * 1024) });
    for (let i = 0; i < 3; i++) {
      const answer = await rawRequest(`GET /api/v1/instance HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      expect(answer.status).toBe(200);
    }
  });

  it('answers CONNECT with 405 and a JSON error', async () => {
    const answer = await rawRequest(`CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`);
    expectJsonError(answer, 405);
    await expectStillServing();
  });

  it('answers an oversized body to a stream route with 413 and a JSON error', async () => {
    const size = 6 * 1024 * 1024 + 1;
    const answer = await rawRequest(Buffer.concat([
      Buffer.from(`GET /api/v1/streaming/health HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n`),
      Buffer.alloc(size, 0x20),
    ]));
    expectJsonError(answer, 413);
  });

  it('answers an HTTP/1.1 request without Host with 400 and a JSON error', async () => {
    const answer = await rawRequest('GET /api/v1/instance HTTP/1.1\r\nConnection: close\r\n\r\n');
    expectJsonError(answer, 400);
  });

  it('answers an oversized header block on the WebSocket port with 431 and a JSON error', async () => {
    const answer = await rawRequest(
      `GET /api/v1/streaming HTTP/1.1\r\nHost: ${host()}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Padding: ${'c'.repeat(20 * 1024)}\r\n\r\n`,
      20_000,
      stack().wsUrl.replace(/^ws/, 'http'),
    );
    expectJsonError(answer, 431);
  });
});
