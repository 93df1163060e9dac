// The local stack's settings (infra/local/stack.ts), which `npm start` and the e2e
// helper share: the public URLs are the operator's when set (two stacks on this
// machine as alpha.test and beta.test), derived from the address and ports when not;
// the streaming callback always stays on this machine's WebSocket server.
import { localSettings, offlineEnv } from '../../infra/local/stack';

const ROOT = '/srv/tootless';
const AWS = { dynamoEndpoint: 'http://127.0.0.1:4567', s3Endpoint: 'http://127.0.0.1:4569', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } };

describe('localSettings', () => {
  it('keeps the defaults of `npm start` with nothing set', () => {
    const s = localSettings({}, ROOT);
    expect(s).toMatchObject({
      host: 'localhost',
      port: 3000,
      emulatorHost: '127.0.0.1',
      listenUrl: 'http://localhost:3000',
      baseUrl: 'http://localhost:3000',
      localDomain: 'localhost:3000',
      // One origin, as a deployed stage: the WebSocket API and the media are served on the HTTP port too.
      streamingUrl: 'ws://localhost:3000',
      streamingManagementUrl: 'http://localhost:3001',
      lambdaEndpoint: 'http://localhost:3002',
      mediaUrl: 'http://localhost:3000/system',
      dataDir: '/srv/tootless/.data',
      esbuildWorkFolder: '.esbuild/local-localhost-3000',
    });
  });

  it('serves a plain hostname on its own address and port 80', () => {
    const env = {
      HOST: '127.0.0.2',
      PORT: '80',
      WS_PORT: '4001',
      S3_PORT: '4002',
      LAMBDA_PORT: '4003',
      BASE_URL: 'http://alpha.test/',
      STREAMING_URL: 'ws://alpha.test:4001',
      MEDIA_URL: 'http://alpha.test:4002/tootless-media-local/',
    };
    const s = localSettings(env, ROOT);
    expect(s).toMatchObject({
      listenUrl: 'http://127.0.0.2',
      baseUrl: 'http://alpha.test',
      localDomain: 'alpha.test',
      streamingUrl: 'ws://alpha.test:4001',
      mediaUrl: 'http://alpha.test:4002/tootless-media-local',
      // The emulators listen where the media URL's name points.
      emulatorHost: '127.0.0.2',
      // Never the public name: the workers post frames to the WebSocket server on this machine.
      streamingManagementUrl: 'http://127.0.0.2:4001',
      lambdaEndpoint: 'http://127.0.0.2:4003',
    });
  });

  it('derives URLs without the default port, and gives stacks on one port different build folders', () => {
    const alpha = localSettings({ HOST: '127.0.0.2', PORT: '80' }, ROOT);
    const beta = localSettings({ HOST: '127.0.0.3', PORT: '80' }, ROOT);
    expect(alpha.baseUrl).toBe('http://127.0.0.2');
    expect(alpha.localDomain).toBe('127.0.0.2');
    expect(alpha.mediaUrl).toBe('http://127.0.0.2/system');
    expect(alpha.streamingUrl).toBe('ws://127.0.0.2');
    // Behind a public name, the one origin is that name's.
    expect(localSettings({ HOST: '0.0.0.0', BASE_URL: 'https://social.example' }, ROOT)).toMatchObject({
      streamingUrl: 'wss://social.example',
      mediaUrl: 'https://social.example/system',
    });
    expect(alpha.esbuildWorkFolder).not.toBe(beta.esbuildWorkFolder);
  });

  it('reaches a stack listening on every address through loopback', () => {
    const s = localSettings({ HOST: '0.0.0.0', BASE_URL: 'https://social.example', LOCAL_DOMAIN: 'example.com' }, ROOT);
    expect(s).toMatchObject({
      emulatorHost: '127.0.0.1',
      listenUrl: 'http://127.0.0.1:3000',
      baseUrl: 'https://social.example',
      localDomain: 'example.com',
      streamingManagementUrl: 'http://127.0.0.1:3001',
      lambdaEndpoint: 'http://127.0.0.1:3002',
    });
    expect(localSettings({ HOST: '::1' }, ROOT).baseUrl).toBe('http://[::1]:3000');
  });

  it.each([
    ['BASE_URL', 'alpha.test'],
    ['BASE_URL', 'ws://alpha.test'],
    ['STREAMING_URL', 'http://alpha.test:4001'],
    ['MEDIA_URL', 'not a url'],
    ['PORT', '0'],
    ['PORT', 'eighty'],
  ])('refuses %s=%s, naming the setting', (name, value) => {
    expect(() => localSettings({ [name]: value }, ROOT)).toThrow(name);
  });
});

describe('offlineEnv', () => {
  it('hands serverless offline the settings, over whatever the shell had', () => {
    const s = localSettings({ HOST: '127.0.0.3', PORT: '80', WS_PORT: '4101', BASE_URL: 'http://beta.test', STREAMING_URL: 'ws://beta.test:4101' }, ROOT);
    const env = offlineEnv(s, { STREAMING_MANAGEMENT_URL: 'https://abc.execute-api.us-east-1.amazonaws.com/prod', FEDERATION_ALLOW_PRIVATE: '1', AWS_PROFILE: 'prod' }, AWS);
    expect(env).toMatchObject({
      BASE_URL: 'http://beta.test',
      LOCAL_DOMAIN: 'beta.test',
      STREAMING_URL: 'ws://beta.test:4101',
      STREAMING_MANAGEMENT_URL: 'http://127.0.0.3:4101',
      FEDERATION_ALLOW_PRIVATE: '1',
      HOST: '127.0.0.3',
      PORT: '80',
      ESBUILD_WORK_FOLDER: '.esbuild/local-127.0.0.3-80',
    });
    expect(env.AWS_PROFILE).toBeUndefined();
  });

  it('gives the front and the functions one origin secret, new at each start unless set', () => {
    const [a, b] = [offlineEnv(localSettings({}, ROOT), {}, AWS), offlineEnv(localSettings({}, ROOT), {}, AWS)];
    expect(a.ORIGIN_SECRET).toMatch(/^[0-9a-f]{48}$/);
    expect(b.ORIGIN_SECRET).not.toBe(a.ORIGIN_SECRET);
    expect(offlineEnv(localSettings({}, ROOT), { ORIGIN_SECRET: 'chosen' }, AWS).ORIGIN_SECRET).toBe('chosen');
  });

  it('leaves outbound federation to private addresses off unless asked', () => {
    expect(offlineEnv(localSettings({}, ROOT), {}, AWS).FEDERATION_ALLOW_PRIVATE).toBe('');
  });
});
