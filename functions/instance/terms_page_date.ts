// GET /terms-of-service/:date: one version of the terms as a web page, by its effective date (YYYY-MM-DD); 404
// for any other date.
import { z } from 'zod';
import { http } from '../../lib/http';
import { recentInstanceSettings } from '../../lib/db/instance';
import { servedTerms } from '../../lib/instance/legal';
import { termsPage } from '../../lib/instance/pages';

export const schema = z.object({ date: z.string() });

export async function run(input: z.infer<typeof schema>) {
  const [settings, terms] = await Promise.all([recentInstanceSettings(), servedTerms(input.date)]);
  return termsPage(settings, terms);
}

export const handler = http(run, { auth: 'public', schema });
