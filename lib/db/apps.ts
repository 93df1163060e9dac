// OAuth applications, keyed by client_id. The client secret is stored hashed.
import { z } from 'zod';
import * as keys from './keys';
import { deleteItem, getItem, putItem } from './table';

export const appItem = z.object({
  id: z.string(),
  clientId: z.string(),
  clientSecretHash: z.string(),
  name: z.string(),
  website: z.string().nullable().default(null),
  redirectUris: z.array(z.string()),
  scopes: z.array(z.string()),
  createdAt: z.string(),
});
export type App = z.infer<typeof appItem>;

export const appByClientId = (clientId: string) => getItem(keys.app(clientId), appItem);

export async function createApp(app: App): Promise<void> {
  const written = await putItem({ ...keys.app(app.clientId), ...appItem.parse(app) }, { ifAbsent: true });
  if (!written) throw new Error('client_id collision');
}

/** Deletes an application; answers what it was, or undefined when there was none. */
export const deleteApp = (clientId: string) => deleteItem(keys.app(clientId), appItem, { ConditionExpression: 'attribute_exists(PK)' });
