// Creates the table and bucket in the emulators from the same definitions
// (infra/table.yml, infra/bucket.yml) that CloudFormation deploys.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load as loadYaml } from 'js-yaml';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, PutBucketCorsCommand, S3Client } from '@aws-sdk/client-s3';
import { LOCAL_CREDENTIALS } from '../../lib/local_stage';

const here = dirname(fileURLToPath(import.meta.url));

type CfnResource = { Properties: Record<string, unknown> };
const loadResource = (file: string): CfnResource => loadYaml(readFileSync(join(here, '..', file), 'utf8')) as CfnResource;

/** The CreateTable input for dynalite, from the CloudFormation definition. */
export function tableInput(tableName: string): CreateTableCommandInput {
  const p = loadResource('table.yml').Properties;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: p.AttributeDefinitions as CreateTableCommandInput['AttributeDefinitions'],
    KeySchema: p.KeySchema as CreateTableCommandInput['KeySchema'],
    GlobalSecondaryIndexes: p.GlobalSecondaryIndexes as CreateTableCommandInput['GlobalSecondaryIndexes'],
  };
}

// s3rver accepts only its own fixed key pair; dynalite accepts any.
export { LOCAL_CREDENTIALS };
const credentials = LOCAL_CREDENTIALS;

export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials });
  try {
    await client.send(new CreateTableCommand(tableInput(tableName)));
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
  }
  for (let i = 0; i < 100; i++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const gsisReady = (Table?.GlobalSecondaryIndexes ?? []).every((g) => g.IndexStatus === 'ACTIVE');
    if (Table?.TableStatus === 'ACTIVE' && gsisReady) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  client.destroy();
}

export async function ensureBucket(endpoint: string, bucket: string): Promise<void> {
  const client = new S3Client({ endpoint, region: 'us-east-1', credentials, forcePathStyle: true });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    const name = (err as { name?: string }).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw err;
  }
  const cors = (loadResource('bucket.yml').Properties.CorsConfiguration as { CorsRules: import("@aws-sdk/client-s3").CORSRule[] }).CorsRules;
  await client.send(new PutBucketCorsCommand({ Bucket: bucket, CORSConfiguration: { CORSRules: cors } }));
  client.destroy();
}
