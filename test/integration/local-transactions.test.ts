// The local transaction layer (infra/local/transactions.ts) conflicts as DynamoDB
// does: a transaction holds its items until its last write; a transaction or a
// single write that touches a held item is refused at once; everything else runs
// side by side. These tests run their own dynalite with the layer in front, and
// a gate between the layer and dynalite that stops reads (or writes) of one item
// until the test opens it: "transaction A is holding X now" is then a fact the
// test waits for, never a matter of timing.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import dynalite from 'dynalite';
import { DynamoDBClient, TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { freePort } from '../../infra/local/emulators';
import { ensureTable, LOCAL_CREDENTIALS } from '../../infra/local/bootstrap';
import { addTransactions } from '../../infra/local/transactions';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Items = NonNullable<TransactWriteCommandInput['TransactItems']>;

const TableName = 'layer';
let server: Server;
let db: DynamoDBDocumentClient;

/** Stops the operation `target` on the item with partition key `pk` on its way into dynalite, until opened. */
type Gate = { target: string; pk: string; reached: Promise<void>; open: () => void };
let gate: { target: string; pk: string; arrive: () => void; opened: Promise<void> } | undefined;

function closeGate(target: string, pk: string): Gate {
  let arrive!: () => void;
  let open!: () => void;
  const reached = new Promise<void>((resolve) => { arrive = resolve; });
  const opened = new Promise<void>((resolve) => { open = resolve; });
  gate = { target, pk, arrive, opened };
  return { target, pk, reached, open: () => { gate = undefined; open(); } };
}

/** Sits between the layer and dynalite: the layer calls it as it would call dynalite. */
function installGate(srv: Server): void {
  const [dyn] = srv.listeners('request') as Handler[];
  srv.removeAllListeners('request');
  srv.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const current = gate;
    if (!current || !String(req.headers['x-amz-target']).endsWith(`.${current.target}`)) return dyn!(req, res);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const input = JSON.parse(body.toString('utf8'));
      const pk = (input.Key ?? input.Item)?.PK?.S;
      const replay = new PassThrough() as unknown as IncomingMessage & PassThrough;
      replay.headers = req.headers;
      replay.method = req.method;
      replay.url = req.url;
      const pass = () => {
        dyn!(replay, res);
        replay.end(body);
      };
      if (pk !== current.pk) return pass();
      current.arrive();
      void current.opened.then(pass);
    });
  });
}

beforeAll(async () => {
  const port = await freePort();
  server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  installGate(server);
  addTransactions(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  await ensureTable(endpoint, TableName);
  // The SDK's client with the retry settings lib/aws/ mirrors (4 attempts for DynamoDB): what a client does with conflicts is part of what is shown.
  db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS, maxAttempts: 4 }));
});

afterAll(async () => {
  db.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const key = (PK: string) => ({ PK, SK: 'X' });
const read = async (PK: string) => (await db.send(new GetCommand({ TableName, Key: key(PK), ConsistentRead: true }))).Item;
const put = (PK: string, extra: Record<string, unknown> = {}): Items[number] => ({ Put: { TableName, Item: { ...key(PK), ...extra } } });
const add = (PK: string, by = 1): Items[number] => ({
  Update: { TableName, Key: key(PK), UpdateExpression: 'ADD n :by', ExpressionAttributeValues: { ':by': by } },
});
const transact = (items: Items) => db.send(new TransactWriteCommand({ TransactItems: items }));
const failure = (p: Promise<unknown>) => p.then(() => undefined, (err: unknown) => err);

/** Starts a transaction whose read of `heldPk` is stopped by the gate; answers once it holds all its items. */
async function holding(heldPk: string, items: Items) {
  const g = closeGate('GetItem', heldPk);
  let settled = false;
  const result = transact(items).finally(() => { settled = true; });
  await g.reached;
  return { result, open: g.open, settled: () => settled };
}

describe('local transactions conflict as in DynamoDB', () => {
  it('cancels a transaction that touches an item another one holds, with TransactionConflict for that item, and writes none of it', async () => {
    const a = await holding('c1-x', [put('c1-x', { by: 'a' }), add('c1-counter')]);

    const err = await failure(transact([add('c1-counter'), put('c1-y')]));
    expect(err).toBeInstanceOf(TransactionCanceledException);
    const cancelled = err as TransactionCanceledException;
    expect(cancelled.CancellationReasons).toEqual([
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
      { Code: 'None' },
    ]);
    expect(cancelled.message).toBe('Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict, None]');
    // The SDK's standard retry strategy does not retry a cancelled transaction.
    expect(cancelled.$metadata.attempts).toBe(1);
    expect(a.settled()).toBe(false);

    a.open();
    await a.result;
    expect(await read('c1-y')).toBeUndefined();
    expect(await read('c1-counter')).toMatchObject({ n: 1 });
    expect(await read('c1-x')).toMatchObject({ by: 'a' });
  });

  it('refuses single and batch writes to a held item with TransactionConflictException, which the SDK does not retry', async () => {
    const a = await holding('c2-x', [put('c2-x', { by: 'a' }), add('c2-counter')]);

    const single = await failure(db.send(new PutCommand({ TableName, Item: { ...key('c2-x'), by: 'single' } })));
    expect(single).toBeInstanceOf(TransactionConflictException);
    expect((single as TransactionConflictException).message).toBe('Transaction is ongoing for the item');
    expect((single as TransactionConflictException).$metadata.attempts).toBe(1);

    const update = await failure(db.send(new UpdateCommand({ TableName, Key: key('c2-counter'), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } })));
    expect(update).toBeInstanceOf(TransactionConflictException);

    const batch = await failure(db.send(new BatchWriteCommand({ RequestItems: { [TableName]: [
      { PutRequest: { Item: key('c2-free') } },
      { DeleteRequest: { Key: key('c2-counter') } },
    ] } })));
    expect(batch).toBeInstanceOf(TransactionConflictException);
    expect(await read('c2-free')).toBeUndefined();

    a.open();
    await a.result;
    expect(await read('c2-x')).toMatchObject({ by: 'a' });
    expect(await read('c2-counter')).toMatchObject({ n: 1 });
  });

  it('lets writes and transactions on other items through while a transaction holds its own', async () => {
    const a = await holding('c3-x', [put('c3-x'), add('c3-counter')]);

    await db.send(new PutCommand({ TableName, Item: { ...key('c3-other'), v: 1 } }));
    await db.send(new UpdateCommand({ TableName, Key: key('c3-other-counter'), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }));
    await transact([put('c3-p'), add('c3-q')]);
    expect(await read('c3-p')).toBeDefined();
    expect(await read('c3-q')).toMatchObject({ n: 1 });
    expect(a.settled()).toBe(false);

    a.open();
    await a.result;
    expect(await read('c3-counter')).toMatchObject({ n: 1 });
  });

  it('cancels a TransactGetItems that reads a held item, and answers it once the transaction is done', async () => {
    await db.send(new PutCommand({ TableName, Item: { ...key('c5-x'), n: 1 } }));
    await db.send(new PutCommand({ TableName, Item: key('c5-free') }));
    const a = await holding('c5-x', [add('c5-x'), put('c5-y')]);
    const get = () => db.send(new TransactGetCommand({ TransactItems: [{ Get: { TableName, Key: key('c5-free') } }, { Get: { TableName, Key: key('c5-x') } }] }));

    const err = await failure(get());
    expect(err).toBeInstanceOf(TransactionCanceledException);
    expect((err as TransactionCanceledException).CancellationReasons?.map((r) => r.Code)).toEqual(['None', 'TransactionConflict']);

    a.open();
    await a.result;
    const { Responses } = await get();
    expect(Responses?.map((r) => r.Item)).toEqual([key('c5-free'), { ...key('c5-x'), n: 2 }]);
  });

  it('keeps counters exact under many concurrent transactions: each commits whole or is cancelled for a conflict and writes nothing', async () => {
    const n = 20;
    const outcomes = await Promise.all(
      Array.from({ length: n }, (_, i) => transact([put(`c6-own-${i}`), add('c6-counter')]).then(() => 'committed' as const, (err: unknown) => err)),
    );
    const committed = outcomes.flatMap((o, i) => (o === 'committed' ? [i] : []));
    const refused = outcomes.flatMap((o, i) => (o === 'committed' ? [] : [i]));
    for (const i of refused) {
      expect(outcomes[i]).toBeInstanceOf(TransactionCanceledException);
      expect((outcomes[i] as TransactionCanceledException).CancellationReasons?.map((r) => r.Code)).toEqual(['None', 'TransactionConflict']);
      expect(await read(`c6-own-${i}`)).toBeUndefined();
    }
    for (const i of committed) expect(await read(`c6-own-${i}`)).toBeDefined();
    expect(committed.length).toBeGreaterThan(0);
    expect(await read('c6-counter')).toMatchObject({ n: committed.length });
  });

  it('loses no single write to a transaction checking the same item: single ADDs and conditional transactional ADDs add up', async () => {
    // A transaction checks a condition by putting the item it read back under that
    // condition; a single write landing between that read and the put-back would be
    // undone. Each side retries what was refused for a conflict, as lib/db does.
    const counter = key('c8-counter');
    const untilDone = async (attempt: () => Promise<unknown>) => {
      for (let tries = 1; ; tries++) {
        const err = await failure(attempt());
        if (err === undefined) return;
        const conflict = err instanceof TransactionConflictException
          || (err instanceof TransactionCanceledException && err.CancellationReasons?.every((r) => r.Code === 'None' || r.Code === 'TransactionConflict'));
        if (!conflict) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 2 ** tries))); // jittered backoff, as lib/db's
      }
    };
    const single = () => db.send(new UpdateCommand({ TableName, Key: counter, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }));
    const checked = () => transact([
      { Update: { TableName, Key: counter, UpdateExpression: 'ADD n :one', ConditionExpression: 'attribute_not_exists(n) OR n >= :zero', ExpressionAttributeValues: { ':one': 1, ':zero': 0 } } },
    ]);
    await Promise.all(Array.from({ length: 30 }, (_, i) => untilDone(i % 2 === 0 ? single : checked)));
    expect(await read('c8-counter')).toMatchObject({ n: 30 });
    // Thirty writers taking turns on one item: on a loaded machine the rounds of retries take longer than jest's 30 s.
  }, 120_000);

  it('puts back what a transaction wrote when a later write of it fails', async () => {
    await db.send(new PutCommand({ TableName, Item: { ...key('c7-text'), n: 'not a number' } }));
    const err = await failure(transact([put('c7-new'), add('c7-text')]));
    expect((err as Error).name).toBe('ValidationException');
    expect(await read('c7-new')).toBeUndefined();
    // Its items are free again.
    await transact([put('c7-new'), put('c7-text')]);
  });
});

describe('local transactions honour ClientRequestToken as DynamoDB does', () => {
  it('applies once a transaction the SDK retries after its answer was lost (same token on the wire twice)', async () => {
    const endpoint = await db.config.endpoint!();
    const base = new DynamoDBClient({
      endpoint: `${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}`,
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 4,
      retryMode: 'standard',
    });
    // The first answer reaches the client as a dropped connection, after the emulator applied the transaction.
    const tokens: string[] = [];
    let lose = true;
    base.middlewareStack.add(
      (next) => async (args) => {
        const body = (args.request as { body: string | Uint8Array }).body;
        tokens.push(JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body)).ClientRequestToken);
        const out = await next(args);
        if (lose) {
          lose = false;
          throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
        }
        return out;
      },
      { step: 'deserialize', priority: 'low', name: 'loseFirstAnswer' },
    );
    const retrying = DynamoDBDocumentClient.from(base);
    try {
      const out = await retrying.send(new TransactWriteCommand({ TransactItems: [add('t1-counter'), put('t1-x', { by: 'retried' })] }));
      expect(out.$metadata.attempts).toBe(2);
    } finally {
      retrying.destroy();
    }
    expect(tokens).toHaveLength(2);
    expect(tokens[0]).toEqual(expect.any(String));
    expect(tokens[1]).toBe(tokens[0]);
    expect(await read('t1-counter')).toMatchObject({ n: 1 });
  });

  it('answers the same token with the same items as a success without writing again, and refuses it with other items', async () => {
    const ClientRequestToken = 't2-token-0001';
    await db.send(new TransactWriteCommand({ ClientRequestToken, TransactItems: [add('t2-counter')] }));
    await db.send(new TransactWriteCommand({ ClientRequestToken, TransactItems: [add('t2-counter')] }));
    expect(await read('t2-counter')).toMatchObject({ n: 1 });

    const err = await failure(db.send(new TransactWriteCommand({ ClientRequestToken, TransactItems: [add('t2-counter', 5)] })));
    expect((err as Error).name).toBe('IdempotentParameterMismatchException');
    expect(await read('t2-counter')).toMatchObject({ n: 1 });

    // Another token is another transaction.
    await db.send(new TransactWriteCommand({ ClientRequestToken: 't2-token-0002', TransactItems: [add('t2-counter')] }));
    expect(await read('t2-counter')).toMatchObject({ n: 2 });
  });

  it('remembers only a success: a cancelled transaction may be sent again with its token and then applies', async () => {
    const ClientRequestToken = 't3-token-0001';
    await db.send(new PutCommand({ TableName, Item: { ...key('t3-guard'), open: false } }));
    const guarded: Items = [
      { ConditionCheck: { TableName, Key: key('t3-guard'), ConditionExpression: '#o = :t', ExpressionAttributeNames: { '#o': 'open' }, ExpressionAttributeValues: { ':t': true } } },
      add('t3-counter'),
    ];
    const err = await failure(db.send(new TransactWriteCommand({ ClientRequestToken, TransactItems: guarded })));
    expect(err).toBeInstanceOf(TransactionCanceledException);
    expect(await read('t3-counter')).toBeUndefined();

    await db.send(new PutCommand({ TableName, Item: { ...key('t3-guard'), open: true } }));
    await db.send(new TransactWriteCommand({ ClientRequestToken, TransactItems: guarded }));
    expect(await read('t3-counter')).toMatchObject({ n: 1 });
  });
});
