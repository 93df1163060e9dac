// Checks a rendered entity against Mastodon's own schema (test/fixtures/mastodon-openapi/schemas.json): every
// required field present, no null where the schema allows none, JSON types matching. A nested Account is checked
// only to be an object (the account serializer's own tests check it).
import { readFileSync } from 'node:fs';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  $ref?: string;
  oneOf?: Schema[];
};

const schemas: Record<string, Schema> = (
  JSON.parse(readFileSync(new URL('../fixtures/mastodon-openapi/schemas.json', import.meta.url), 'utf8')) as { components: { schemas: Record<string, Schema> } }
).components.schemas;

function check(value: unknown, schema: Schema, path: string, top: boolean): string[] {
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop() ?? '';
    if (name === 'Account' && !top) return value !== null && typeof value === 'object' ? [] : [`${path}: expected an Account`];
    return check(value, schemas[name] ?? {}, path, false);
  }
  if (schema.oneOf) return schema.oneOf.some((alt) => check(value, alt, path, false).length === 0) ? [] : [`${path}: matches none of its alternatives`];
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (value === null) return types.includes('null') ? [] : [`${path}: null`];
  const jsonType = Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  if (types.length > 0 && !types.includes(jsonType) && !(jsonType === 'integer' && types.includes('number'))) return [`${path}: ${jsonType}, expected ${types.join('|')}`];
  const out: string[] = [];
  if (jsonType === 'object' && value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in record)) out.push(`${path}.${key}: missing`);
    for (const [key, sub] of Object.entries(schema.properties ?? {})) if (key in record) out.push(...check(record[key], sub, `${path}.${key}`, false));
  }
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => out.push(...check(item, schema.items!, `${path}[${i}]`, false)));
  return out;
}

/** What in `value` breaks the schema of the entity `name` (an empty list when it fits). */
export const schemaViolations = (value: unknown, name: string): string[] => check(value, schemas[name] ?? {}, '$', true);
