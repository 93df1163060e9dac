// dynalite implements every DynamoDB operation this project uses except
// TransactWriteItems and TransactGetItems. This adds them in front of its HTTP
// handler, built only from the operations dynalite has:
//  - every write (single, batch or transaction) runs one at a time behind a mutex,
//    so a transaction's checks and writes are not interleaved with other writes;
//  - each condition is evaluated by dynalite itself: an existing item is put back
//    unchanged under the condition, a missing one is "deleted" under it;
//  - if any condition fails nothing is written, and the client receives
//    TransactionCanceledException with CancellationReasons, as from DynamoDB;
//  - if a write fails midway, the items already written are restored.
// DynamoDB's rule that one transaction may touch an item only once is enforced too.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Answer = { status: number; body: Json };

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems', 'TransactGetItems']);
const PREFIX = 'com.amazonaws.dynamodb.v20120810#';

class Mutex {
  private tail: Promise<void> = Promise.resolve();
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.then(() => undefined, () => undefined);
    return result;
  }
}

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** A request object dynalite's handler can read, carrying a body we already hold. */
function fakeRequest(template: IncomingMessage, target: string | undefined, body: Buffer): IncomingMessage {
  const stream = new PassThrough() as unknown as IncomingMessage & PassThrough;
  stream.headers = { ...template.headers, ...(target ? { 'x-amz-target': `DynamoDB_20120810.${target}` } : {}) };
  stream.method = 'POST';
  stream.url = template.url ?? '/';
  process.nextTick(() => stream.end(body));
  return stream;
}

/** Calls dynalite with one operation and collects its answer. */
function invoke(handler: Handler, template: IncomingMessage, target: string, payload: Json): Promise<Answer> {
  return new Promise((resolve) => {
    const headers: Record<string, unknown> = {};
    const res = {
      statusCode: 200,
      contentType: 'application/x-amz-json-1.0',
      setHeader: (k: string, v: unknown) => { headers[k.toLowerCase()] = v; },
      end: (data?: string | Buffer) => {
        const text = data ? data.toString() : '';
        resolve({ status: res.statusCode, body: text ? JSON.parse(text) : {} });
      },
    };
    handler(fakeRequest(template, target, Buffer.from(JSON.stringify(payload))), res as unknown as ServerResponse);
  });
}

/** Keeps only the #names and :values an expression uses (DynamoDB rejects unused ones). */
function referenced(expressions: (string | undefined)[], names?: Json, values?: Json) {
  const text = expressions.filter(Boolean).join(' ');
  const used = new Set(text.match(/[#:][A-Za-z0-9_]+/g) ?? []);
  const pick = (obj?: Json) => {
    if (!obj) return undefined;
    const kept = Object.fromEntries(Object.entries(obj).filter(([k]) => used.has(k)));
    return Object.keys(kept).length ? kept : undefined;
  };
  return { ExpressionAttributeNames: pick(names), ExpressionAttributeValues: pick(values) };
}

const send = (res: ServerResponse, answer: Answer) => {
  const body = JSON.stringify(answer.body);
  res.statusCode = answer.status;
  res.setHeader('Content-Type', 'application/x-amz-json-1.0');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
};

const validation = (message: string): Answer => ({ status: 400, body: { __type: 'com.amazon.coral.validate#ValidationException', message } });

export function addTransactions(server: Server): void {
  const [first] = server.listeners('request') as Handler[];
  if (!first) throw new Error('dynalite server has no request handler');
  const original: Handler = first;
  server.removeAllListeners('request');
  const mutex = new Mutex();
  const keySchemas = new Map<string, string[]>();

  const keyNames = async (template: IncomingMessage, table: string): Promise<string[] | Answer> => {
    const known = keySchemas.get(table);
    if (known) return known;
    const described = await invoke(original, template, 'DescribeTable', { TableName: table });
    if (described.status !== 200) return described;
    const names = (described.body.Table.KeySchema as Json[]).map((k) => k.AttributeName as string);
    keySchemas.set(table, names);
    return names;
  };

  async function transactWrite(template: IncomingMessage, input: Json): Promise<Answer> {
    const items: Json[] = input.TransactItems ?? [];
    if (items.length === 0 || items.length > 100) return validation('TransactItems must have between 1 and 100 items');
    type Op = { kind: string; spec: Json; table: string; key: Json; before?: Json };
    const ops: Op[] = [];
    const seen = new Set<string>();
    for (const entry of items) {
      const [kind, spec] = Object.entries(entry)[0] as [string, Json];
      const names = await keyNames(template, spec.TableName);
      if (!Array.isArray(names)) return names;
      const source = kind === 'Put' ? spec.Item : spec.Key;
      const key = Object.fromEntries(names.map((n) => [n, source?.[n]]));
      const id = `${spec.TableName}|${JSON.stringify(key)}`;
      if (seen.has(id)) return validation('Transaction request cannot include multiple operations on one item');
      seen.add(id);
      ops.push({ kind, spec, table: spec.TableName, key });
    }
    // Read every item once, then evaluate each condition with dynalite's own evaluator.
    const reasons: Json[] = [];
    for (const op of ops) {
      const got = await invoke(original, template, 'GetItem', { TableName: op.table, Key: op.key, ConsistentRead: true });
      if (got.status !== 200) return got;
      op.before = got.body.Item;
      if (!op.spec.ConditionExpression) {
        reasons.push({ Code: 'None' });
        continue;
      }
      const cond = {
        TableName: op.table,
        ConditionExpression: op.spec.ConditionExpression,
        ...referenced([op.spec.ConditionExpression], op.spec.ExpressionAttributeNames, op.spec.ExpressionAttributeValues),
      };
      const check = op.before
        ? await invoke(original, template, 'PutItem', { ...cond, Item: op.before })
        : await invoke(original, template, 'DeleteItem', { ...cond, Key: op.key });
      if (check.status === 200) reasons.push({ Code: 'None' });
      else if (String(check.body.__type).endsWith('ConditionalCheckFailedException')) {
        reasons.push({
          Code: 'ConditionalCheckFailed',
          Message: 'The conditional request failed',
          ...(op.spec.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' && op.before ? { Item: op.before } : {}),
        });
      } else return check;
    }
    if (reasons.some((r) => r.Code !== 'None')) {
      return {
        status: 400,
        body: {
          __type: `${PREFIX}TransactionCanceledException`,
          message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
          CancellationReasons: reasons,
        },
      };
    }
    // Apply; on a failure, put back what was there before.
    const applied: Op[] = [];
    for (const op of ops) {
      let answer: Answer | undefined;
      if (op.kind === 'Put') {
        answer = await invoke(original, template, 'PutItem', { TableName: op.table, Item: op.spec.Item });
      } else if (op.kind === 'Delete') {
        answer = await invoke(original, template, 'DeleteItem', { TableName: op.table, Key: op.key });
      } else if (op.kind === 'Update') {
        answer = await invoke(original, template, 'UpdateItem', {
          TableName: op.table,
          Key: op.key,
          UpdateExpression: op.spec.UpdateExpression,
          ...referenced([op.spec.UpdateExpression], op.spec.ExpressionAttributeNames, op.spec.ExpressionAttributeValues),
        });
      }
      if (answer && answer.status !== 200) {
        for (const done of applied.reverse()) {
          if (done.before) await invoke(original, template, 'PutItem', { TableName: done.table, Item: done.before });
          else await invoke(original, template, 'DeleteItem', { TableName: done.table, Key: done.key });
        }
        return answer;
      }
      applied.push(op);
    }
    return { status: 200, body: {} };
  }

  async function transactGet(template: IncomingMessage, input: Json): Promise<Answer> {
    const responses: Json[] = [];
    for (const entry of input.TransactItems ?? []) {
      const spec = entry.Get as Json;
      const got = await invoke(original, template, 'GetItem', { ...spec, ConsistentRead: true });
      if (got.status !== 200) return got;
      responses.push(got.body.Item ? { Item: got.body.Item } : {});
    }
    return { status: 200, body: { Responses: responses } };
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    if (req.method !== 'POST' || !WRITES.has(operation)) {
      original(req, res);
      return;
    }
    readBody(req)
      .then((body) =>
        mutex.run(async () => {
          if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
            let input: Json;
            try {
              input = JSON.parse(body.toString('utf8'));
            } catch {
              send(res, { status: 400, body: { __type: 'com.amazon.coral.service#SerializationException' } });
              return;
            }
            send(res, operation === 'TransactWriteItems' ? await transactWrite(req, input) : await transactGet(req, input));
            return;
          }
          await new Promise<void>((resolve) => {
            res.on('finish', resolve);
            res.on('close', resolve);
            original(fakeRequest(req, undefined, body), res);
          });
        }),
      )
      .catch((err: unknown) => {
        if (!res.headersSent) send(res, { status: 500, body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: String(err) } });
      });
  });
}
