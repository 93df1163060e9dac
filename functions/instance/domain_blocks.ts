// GET /api/v1/instance/domain_blocks (https://docs.joinmastodon.org/methods/instance/#domain_blocks): the
// operator's domain blocks as DomainBlock entities, when the operator made them public (`settings set
// domain-blocks-public on`); 404 otherwise.
import { http, json } from '../../lib/http';
import { INSTANCE_CACHE_CONTROL } from '../../lib/instance/info';
import { publicDomainBlocks } from '../../lib/instance/federation';
import { isListedPublicly, renderDomainBlock } from '../../lib/render/domain_block';

export async function run() {
  return json((await publicDomainBlocks()).filter(isListedPublicly).map(renderDomainBlock), 200, { 'Cache-Control': INSTANCE_CACHE_CONTROL });
}

export const handler = http(run, { auth: 'public' });
