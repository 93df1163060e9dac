// One request header, whatever the case of its name: apart from the body parsers, so that
// what reads only headers (the token check of streaming and the workers) bundles no
// multipart or form parser.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

export const header = (event: APIGatewayProxyEventV2, name: string): string | undefined => {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(event.headers ?? {})) if (k.toLowerCase() === wanted) return v;
  return undefined;
};
