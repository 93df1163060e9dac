// POST /api/v1/apps (https://docs.joinmastodon.org/methods/apps/#create)
import { createAppInput, registerApp } from '../../lib/apps';
import { http } from '../../lib/http';
import { throttles } from '../../lib/http/ratelimit';
import { renderApplication } from '../../lib/render/application';

export async function run(input: typeof createAppInput._output) {
  const { app, clientSecret } = await registerApp(input);
  return renderApplication(app, { clientSecret });
}

export const handler = http(run, { auth: 'public', schema: createAppInput, throttles: [throttles.appRegistration] });
