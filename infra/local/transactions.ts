// dynalite implements every DynamoDB operation this project uses except
// TransactWriteItems and TransactGetItems. This adds them in front of its HTTP
// handler, built only from the operations dynalite has, and with DynamoDB's
// conflict semantics, so that what AWS refuses under concurrency is refused here:
//  - a transaction holds its items (table + key) from its first check to its last
//    write. Independent transactions run concurrently; one that touches an item
//    another holds is cancelled at once with TransactionCanceledException, reason
//    `TransactionConflict` for that item, as DynamoDB does (it does not wait);
//  - a PutItem, UpdateItem, DeleteItem or BatchWriteItem on a held item is refused
//    with TransactionConflictException and writes nothing; writes to items nobody
//    holds go straight to dynalite, never queued behind unrelated transactions;
//  - a transaction waits for single writes already under way on its items before
//    it reads them, and none can start once it holds them: its check-then-write is
//    never interleaved with another write to the same item;
//  - each condition is evaluated by dynalite itself: an existing item is put back
//    unchanged under the condition, a missing one is "deleted" under it;
//  - if any condition fails nothing is written, and the client receives
//    TransactionCanceledException with CancellationReasons, as from DynamoDB;
//  - if a write fails midway, the items already written are restored;
//  - TransactGetItems is cancelled (TransactionConflict) when an item it reads is
//    held by a transaction or written while it reads, so what it answers is one
//    moment's state, as DynamoDB's.
// DynamoDB's rule that one transaction may touch an item only once is enforced too.
// A TransactWriteItems with a ClientRequestToken is idempotent as in DynamoDB: the
// same token with the same items within 10 minutes of a success is answered as a
// success without writing again (so a retry of a request whose answer was lost is
// applied once); with other items it is refused with
// IdempotentParameterMismatchException; while the first is still running, a second
// is refused with TransactionInProgressException.
import { createHash } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Answer = { status: number; body: Json };

const SINGLE_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);
const PREFIX = 'com.amazonaws.dynamodb.v20120810#';
/** DynamoDB's words for a conflict, on a cancellation reason and on TransactionConflictException alike. */
const ONGOING = 'Transaction is ongoing for the item';

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

const cancelled = (reasons: Json[]): Answer => ({
  status: 400,
  body: {
    __type: `${PREFIX}TransactionCanceledException`,
    Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
    CancellationReasons: reasons,
  },
});

/** The cancellation of a transaction (write or read) whose items at `conflicting` were taken. */
const conflictCancellation = (count: number, conflicting: Set<number>): Answer =>
  cancelled(Array.from({ length: count }, (_, i) => (conflicting.has(i) ? { Code: 'TransactionConflict', Message: ONGOING } : { Code: 'None' })));

const wantsCapacity = (input: Json) => input.ReturnConsumedCapacity === 'TOTAL' || input.ReturnConsumedCapacity === 'INDEXES';
const unitsOf = (body: Json): number => Number(body?.ConsumedCapacity?.CapacityUnits ?? 0);

const transactionConflict: Answer = { status: 400, body: { __type: `${PREFIX}TransactionConflictException`, message: ONGOING } };

/** How long DynamoDB remembers a ClientRequestToken after its transaction succeeded. */
const TOKEN_TTL_MS = 10 * 60 * 1000;
const idempotentMismatch: Answer = {
  status: 400,
  body: { __type: `${PREFIX}IdempotentParameterMismatchException`, message: 'Transaction request cannot include a client token that was used with different parameters' },
};
const inProgress: Answer = {
  status: 400,
  body: { __type: `${PREFIX}TransactionInProgressException`, message: 'Transaction with the same client token is in progress' },
};

/** A TransactGetItems under way: which of its items were written while it read. */
type Reader = { disturbed: Set<string> };

export function addTransactions(server: Server): void {
  const [first] = server.listeners('request') as Handler[];
  if (!first) throw new Error('dynalite server has no request handler');
  const original: Handler = first;
  server.removeAllListeners('request');
  const keySchemas = new Map<string, string[]>();

  // The state below is only read and changed synchronously (between awaits), which
  // is what makes "check that nobody holds it, then hold it" one step.
  /** Items held by a write transaction, by item id; the value names the holder. */
  const holds = new Map<string, symbol>();
  /** Single writes under way, by item id: settled when dynalite has answered. */
  const inflight = new Map<string, Set<Promise<void>>>();
  /** TransactGetItems under way, by item id. */
  const readers = new Map<string, Set<Reader>>();
  /** ClientRequestTokens seen: the items they came with, and when their transaction succeeded (undefined while it runs). */
  const tokens = new Map<string, { items: string; succeededAt?: number }>();

  /** Applies a TransactWriteItems once per ClientRequestToken, as DynamoDB does. */
  async function idempotentWrite(template: IncomingMessage, input: Json): Promise<Answer> {
    const token = input.ClientRequestToken;
    if (token === undefined) return transactWrite(template, input);
    if (typeof token !== 'string' || token.length < 1 || token.length > 36) return validation('ClientRequestToken must be between 1 and 36 characters');
    const now = Date.now();
    // Oldest first (a Map keeps insertion order): stop at the first one still remembered, so that forgetting costs
    // nothing per transaction however many the last ten minutes saw.
    for (const [t, seen] of tokens) {
      if (seen.succeededAt === undefined || now - seen.succeededAt <= TOKEN_TTL_MS) break;
      tokens.delete(t);
    }
    // Kept as a digest: a load benchmark's ten minutes of transactions would otherwise keep every item they wrote.
    const items = createHash('sha256').update(JSON.stringify(input.TransactItems ?? [])).digest('base64');
    const seen = tokens.get(token);
    if (seen) {
      if (seen.items !== items) return idempotentMismatch;
      if (seen.succeededAt === undefined) return inProgress;
      // Already applied: answered as a success, nothing written again.
      return { status: 200, body: {} };
    }
    const entry: { items: string; succeededAt?: number } = { items };
    tokens.set(token, entry);
    const answer = await transactWrite(template, input).catch((err: unknown) => {
      tokens.delete(token);
      throw err;
    });
    // Only a success is remembered: a cancelled or refused transaction wrote nothing, and may be sent again.
    if (answer.status === 200) entry.succeededAt = Date.now();
    else tokens.delete(token);
    return answer;
  }

  const keyNames = async (template: IncomingMessage, table: string): Promise<string[] | Answer> => {
    const known = keySchemas.get(table);
    if (known) return known;
    const described = await invoke(original, template, 'DescribeTable', { TableName: table });
    if (described.status !== 200) return described;
    const names = (described.body.Table.KeySchema as Json[]).map((k) => k.AttributeName as string);
    keySchemas.set(table, names);
    return names;
  };

  /** The item's identity: its table and the values of its key attributes (from a Key or a whole Item). */
  const itemOf = (table: string, names: string[], source: Json | undefined) => {
    const key = Object.fromEntries(names.map((n) => [n, source?.[n]]));
    return { key, id: `${table}|${JSON.stringify(key)}` };
  };

  /** A write of these items (single, or a transaction taking them) ends every TransactGetItems reading them in a conflict. */
  const disturb = (ids: string[]) => {
    for (const id of ids) for (const reader of readers.get(id) ?? []) reader.disturbed.add(id);
  };

  /** Registers a single write under way on `ids`; the returned function ends it. */
  const startWrite = (ids: string[]): (() => void) => {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => { finish = resolve; });
    for (const id of ids) {
      const set = inflight.get(id) ?? new Set();
      set.add(done);
      inflight.set(id, set);
    }
    return () => {
      for (const id of ids) {
        const set = inflight.get(id);
        set?.delete(done);
        if (set?.size === 0) inflight.delete(id);
      }
      finish();
    };
  };

  /** The items a PutItem, UpdateItem, DeleteItem or BatchWriteItem writes; undefined when dynalite should judge the request. */
  async function writeTargets(template: IncomingMessage, operation: string, input: Json): Promise<string[] | undefined> {
    const targets: [string, Json | undefined][] = [];
    if (operation === 'PutItem') targets.push([input.TableName, input.Item]);
    else if (operation === 'UpdateItem' || operation === 'DeleteItem') targets.push([input.TableName, input.Key]);
    else {
      for (const [table, requests] of Object.entries((input.RequestItems ?? {}) as Record<string, Json[]>)) {
        if (!Array.isArray(requests)) return undefined;
        for (const r of requests) targets.push([table, r?.PutRequest ? r.PutRequest.Item : r?.DeleteRequest?.Key]);
      }
    }
    const ids: string[] = [];
    for (const [table, source] of targets) {
      if (typeof table !== 'string') return undefined;
      const names = await keyNames(template, table);
      if (!Array.isArray(names)) return undefined;
      ids.push(itemOf(table, names, source).id);
    }
    return ids;
  }

  async function singleWrite(req: IncomingMessage, res: ServerResponse, operation: string, body: Buffer): Promise<void> {
    let ids: string[] | undefined;
    try {
      ids = await writeTargets(req, operation, JSON.parse(body.toString('utf8')));
    } catch {
      ids = undefined; // not JSON: dynalite answers the SerializationException
    }
    let end = () => {};
    if (ids) {
      // Refused whole: a BatchWriteItem refused here has written nothing, so it can be sent again as it is.
      if (ids.some((id) => holds.has(id))) {
        send(res, transactionConflict);
        return;
      }
      disturb(ids);
      end = startWrite(ids);
    }
    await new Promise<void>((resolve) => {
      res.on('finish', resolve);
      res.on('close', resolve);
      original(fakeRequest(req, undefined, body), res);
    }).finally(end);
  }

  async function transactWrite(template: IncomingMessage, input: Json): Promise<Answer> {
    const items: Json[] = input.TransactItems ?? [];
    if (items.length === 0 || items.length > 100) return validation('TransactItems must have between 1 and 100 items');
    type Op = { kind: string; spec: Json; table: string; key: Json; id: string; before?: Json };
    const ops: Op[] = [];
    for (const entry of items) {
      const [kind, spec] = Object.entries(entry)[0] as [string, Json];
      const names = await keyNames(template, spec.TableName);
      if (!Array.isArray(names)) return names;
      const { key, id } = itemOf(spec.TableName, names, kind === 'Put' ? spec.Item : spec.Key);
      if (ops.some((op) => op.id === id)) return validation('Transaction request cannot include multiple operations on one item');
      ops.push({ kind, spec, table: spec.TableName, key, id });
    }

    // Take every item or none, in one synchronous step.
    const taken = new Set(ops.flatMap((op, i) => (holds.has(op.id) ? [i] : [])));
    if (taken.size > 0) return conflictCancellation(ops.length, taken);
    const holder = Symbol('transaction');
    for (const op of ops) holds.set(op.id, holder);
    disturb(ops.map((op) => op.id));
    try {
      // Writes that started before the hold must land before the items are read.
      await Promise.all(ops.flatMap((op) => [...(inflight.get(op.id) ?? [])]));
      return await checkAndApply(template, ops, wantsCapacity(input));
    } finally {
      for (const op of ops) if (holds.get(op.id) === holder) holds.delete(op.id);
    }
  }

  /**
   * Reads every item once, evaluates each condition with dynalite's own evaluator,
   * then writes all or nothing. The items are distinct, so each step runs on all of
   * them at once: the shorter the hold, the fewer conflicts, as in DynamoDB.
   */
  async function checkAndApply(
    template: IncomingMessage,
    ops: { kind: string; spec: Json; table: string; key: Json; before?: Json }[],
    returnCapacity: boolean,
  ): Promise<Answer> {
    // DynamoDB's price of a transaction: two write units per item and KB written (a ConditionCheck
    // included), which the answer reports when asked (ReturnConsumedCapacity); dynalite measures each item.
    const capacity = returnCapacity ? { ReturnConsumedCapacity: 'TOTAL' } : {};
    let units = 0;
    const checked = await Promise.all(ops.map(async (op): Promise<Json | Answer> => {
      const got = await invoke(original, template, 'GetItem', { TableName: op.table, Key: op.key, ConsistentRead: true });
      if (got.status !== 200) return got;
      op.before = got.body.Item;
      if (!op.spec.ConditionExpression) return { Code: 'None' };
      const cond = {
        TableName: op.table,
        ConditionExpression: op.spec.ConditionExpression,
        ...referenced([op.spec.ConditionExpression], op.spec.ExpressionAttributeNames, op.spec.ExpressionAttributeValues),
      };
      // Safe only because the item is held: nothing else can write it between the read and this put-back.
      const check = op.before
        ? await invoke(original, template, 'PutItem', { ...cond, Item: op.before, ...capacity })
        : await invoke(original, template, 'DeleteItem', { ...cond, Key: op.key, ...capacity });
      // A ConditionCheck writes nothing but is paid as a transactional write of the item it reads.
      if (op.kind === 'ConditionCheck') units += 2 * unitsOf(check.body);
      if (check.status === 200) return { Code: 'None' };
      if (!String(check.body.__type).endsWith('ConditionalCheckFailedException')) return check;
      return {
        Code: 'ConditionalCheckFailed',
        Message: 'The conditional request failed',
        ...(op.spec.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' && op.before ? { Item: op.before } : {}),
      };
    }));
    const failedCall = checked.find((c): c is Answer => 'status' in c);
    if (failedCall) return failedCall;
    const reasons = checked as Json[];
    if (reasons.some((r) => r.Code !== 'None')) return cancelled(reasons);

    // Apply; if any write fails, put back what was there before each one that succeeded.
    const answers = await Promise.all(ops.map((op) => {
      if (op.kind === 'Put') return invoke(original, template, 'PutItem', { TableName: op.table, Item: op.spec.Item, ...capacity });
      if (op.kind === 'Delete') return invoke(original, template, 'DeleteItem', { TableName: op.table, Key: op.key, ...capacity });
      if (op.kind === 'Update') {
        return invoke(original, template, 'UpdateItem', {
          TableName: op.table,
          Key: op.key,
          UpdateExpression: op.spec.UpdateExpression,
          ...referenced([op.spec.UpdateExpression], op.spec.ExpressionAttributeNames, op.spec.ExpressionAttributeValues),
          ...capacity,
        });
      }
      return Promise.resolve<Answer>({ status: 200, body: {} }); // ConditionCheck writes nothing
    }));
    const failure = answers.find((a) => a.status !== 200);
    if (!failure) {
      for (const a of answers) units += 2 * unitsOf(a.body);
      return { status: 200, body: returnCapacity ? { ConsumedCapacity: [{ TableName: ops[0]!.table, CapacityUnits: units }] } : {} };
    }
    await Promise.all(ops.map((op, i) => {
      if (answers[i]!.status !== 200 || op.kind === 'ConditionCheck') return undefined;
      return op.before
        ? invoke(original, template, 'PutItem', { TableName: op.table, Item: op.before })
        : invoke(original, template, 'DeleteItem', { TableName: op.table, Key: op.key });
    }));
    return failure;
  }

  async function transactGet(template: IncomingMessage, input: Json): Promise<Answer> {
    const specs: Json[] = (input.TransactItems ?? []).map((entry: Json) => entry.Get as Json);
    const ids: string[] = [];
    for (const spec of specs) {
      const names = await keyNames(template, spec?.TableName);
      if (!Array.isArray(names)) return names;
      ids.push(itemOf(spec.TableName, names, spec.Key).id);
    }
    const busy = new Set(ids.flatMap((id, i) => (holds.has(id) || inflight.has(id) ? [i] : [])));
    if (busy.size > 0) return conflictCancellation(ids.length, busy);
    const reader: Reader = { disturbed: new Set() };
    for (const id of ids) readers.set(id, (readers.get(id) ?? new Set()).add(reader));
    const responses: Json[] = [];
    let units = 0;
    try {
      for (const spec of specs) {
        const got = await invoke(original, template, 'GetItem', { ...spec, ConsistentRead: true, ...(wantsCapacity(input) ? { ReturnConsumedCapacity: 'TOTAL' } : {}) });
        if (got.status !== 200) return got;
        units += 2 * unitsOf(got.body); // a transactional read costs twice a strongly consistent one
        responses.push(got.body.Item ? { Item: got.body.Item } : {});
      }
    } finally {
      for (const id of ids) {
        const set = readers.get(id);
        set?.delete(reader);
        if (set?.size === 0) readers.delete(id);
      }
    }
    if (reader.disturbed.size > 0) return conflictCancellation(ids.length, new Set(ids.flatMap((id, i) => (reader.disturbed.has(id) ? [i] : []))));
    return { status: 200, body: { Responses: responses, ...(wantsCapacity(input) ? { ConsumedCapacity: [{ TableName: specs[0]?.TableName, CapacityUnits: units }] } : {}) } };
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    const transactional = operation === 'TransactWriteItems' || operation === 'TransactGetItems';
    if (req.method !== 'POST' || !(transactional || SINGLE_WRITES.has(operation))) {
      original(req, res);
      return;
    }
    readBody(req)
      .then(async (body) => {
        if (!transactional) return singleWrite(req, res, operation, body);
        let input: Json;
        try {
          input = JSON.parse(body.toString('utf8'));
        } catch {
          send(res, { status: 400, body: { __type: 'com.amazon.coral.service#SerializationException' } });
          return;
        }
        send(res, operation === 'TransactWriteItems' ? await idempotentWrite(req, input) : await transactGet(req, input));
      })
      .catch((err: unknown) => {
        if (!res.headersSent) send(res, { status: 500, body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: String(err) } });
      });
  });
}
