// The local emulator's transactions behave as DynamoDB's: all or nothing.
import { dynamo, type CancellationReason } from '../../lib/aws';
import { transact } from '../../lib/db/table';

const TableName = () => process.env.TABLE_NAME!;
const read = async (PK: string) => (await dynamo().get({ TableName: TableName(), Key: { PK, SK: 'X' } })).Item;

describe('emulated TransactWriteItems', () => {
  it('writes every item when every condition holds', async () => {
    const res = await transact([
      { Put: { Item: { PK: 'tx-a', SK: 'X', n: 1 }, ConditionExpression: 'attribute_not_exists(PK)' } },
      { Put: { Item: { PK: 'tx-b', SK: 'X', n: 2 } } },
    ]);
    expect(res).toEqual({ ok: true });
    expect(await read('tx-a')).toMatchObject({ n: 1 });
    expect(await read('tx-b')).toMatchObject({ n: 2 });
  });

  it('writes nothing and names the failed item when one condition fails', async () => {
    await transact([{ Put: { Item: { PK: 'tx-c', SK: 'X', n: 1 } } }]);
    const res = await transact([
      { Put: { Item: { PK: 'tx-d', SK: 'X', n: 1 } } },
      { Update: { Key: { PK: 'tx-c', SK: 'X' }, UpdateExpression: 'SET n = n + :one', ConditionExpression: 'n > :limit', ExpressionAttributeValues: { ':one': 1, ':limit': 5 } } },
    ]);
    expect(res).toEqual({ ok: false, failed: [1] });
    expect(await read('tx-d')).toBeUndefined();
    expect(await read('tx-c')).toMatchObject({ n: 1 });
  });

  it('applies updates, deletes and condition checks together', async () => {
    await transact([{ Put: { Item: { PK: 'tx-e', SK: 'X', n: 1 } } }, { Put: { Item: { PK: 'tx-f', SK: 'X' } } }]);
    const res = await transact([
      { Update: { Key: { PK: 'tx-e', SK: 'X' }, UpdateExpression: 'ADD n :one', ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: { ':one': 1 } } },
      { Delete: { Key: { PK: 'tx-f', SK: 'X' }, ConditionExpression: 'attribute_exists(PK)' } },
      { ConditionCheck: { Key: { PK: 'tx-missing', SK: 'X' }, ConditionExpression: 'attribute_not_exists(PK)' } },
    ]);
    expect(res).toEqual({ ok: true });
    expect(await read('tx-e')).toMatchObject({ n: 2 });
    expect(await read('tx-f')).toBeUndefined();
  });

  it('rejects two operations on one item, as DynamoDB does', async () => {
    await expect(
      dynamo().transactWrite({ TransactItems: [
        { Put: { TableName: TableName(), Item: { PK: 'tx-g', SK: 'X' } } },
        { Delete: { TableName: TableName(), Key: { PK: 'tx-g', SK: 'X' } } },
      ] }),
    ).rejects.toThrow(/multiple operations on one item/);
  });

  it('answers TransactionCanceledException with reasons to the SDK', async () => {
    await transact([{ Put: { Item: { PK: 'tx-h', SK: 'X' } } }]);
    const err = await dynamo().transactWrite({ TransactItems: [
      { Put: { TableName: TableName(), Item: { PK: 'tx-h', SK: 'X' }, ConditionExpression: 'attribute_not_exists(PK)' } },
    ] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe('TransactionCanceledException');
    expect((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode).toBe(400);
    expect((err as { CancellationReasons?: CancellationReason[] }).CancellationReasons?.[0]?.Code).toBe('ConditionalCheckFailed');
  });
});

describe('TransactWriteItems idempotency through lib/aws', () => {
  it('sends a token of its own with each call, so a resend of one call is applied once and another call applies again', async () => {
    const { observeRequests } = await import('../../lib/aws');
    const tokens: string[] = [];
    const bump = { Update: { Key: { PK: 'tx-token', SK: 'X' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } } };
    const stop = observeRequests((req) => {
      if (String(req.headers?.['X-Amz-Target'] ?? req.headers?.['x-amz-target']).endsWith('TransactWriteItems')) {
        const body = req.body as string | Uint8Array;
        tokens.push(JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body)).ClientRequestToken);
      }
    });
    try {
      await transact([bump]);
      await transact([bump]);
    } finally {
      stop();
    }
    expect(tokens).toHaveLength(2);
    expect(tokens[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(tokens[1]).not.toBe(tokens[0]);
    expect(await read('tx-token')).toMatchObject({ n: 2 });
    // The same token sent again (a retry of the first call) is answered without applying again.
    const Update = { ...bump.Update, TableName: TableName() };
    await dynamo().transactWrite({ ClientRequestToken: tokens[0], TransactItems: [{ Update }] });
    expect(await read('tx-token')).toMatchObject({ n: 2 });
  });
});
