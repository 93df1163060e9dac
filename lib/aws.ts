// AWS clients, each reading its endpoint from the environment so the same code
// runs against AWS, LocalStack and the embedded emulators.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { config } from './config';

/** DynamoDB calls made since the last reset; read by the HTTP stack for metrics. */
export const dbCalls = { count: 0, reset() { this.count = 0; } };

let ddb: DynamoDBDocumentClient | undefined;
let ddbKey = '';
export const dynamo = (): DynamoDBDocumentClient => {
  const endpoint = config.endpointFor('DYNAMODB');
  const key = `${endpoint}|${config.region}`;
  if (!ddb || key !== ddbKey) {
    const base = new DynamoDBClient({ endpoint, region: config.region, maxAttempts: 4 });
    base.middlewareStack.add(
      (next) => async (args) => {
        dbCalls.count += 1;
        return next(args);
      },
      { step: 'initialize', name: 'countDynamoCalls' },
    );
    ddb = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
      unmarshallOptions: { wrapNumbers: false },
    });
    ddbKey = key;
  }
  return ddb;
};

let s3Client: S3Client | undefined;
export const s3 = (): S3Client => {
  const endpoint = config.endpointFor('S3');
  s3Client ??= new S3Client({ endpoint, region: config.region, forcePathStyle: Boolean(endpoint) });
  return s3Client;
};

let sqsClient: SQSClient | undefined;
export const sqs = (): SQSClient => {
  sqsClient ??= new SQSClient({ endpoint: config.endpointFor('SQS'), region: config.region });
  return sqsClient;
};

let lambdaClient: LambdaClient | undefined;
export const lambda = (): LambdaClient => {
  lambdaClient ??= new LambdaClient({ endpoint: config.lambdaEndpoint, region: config.region });
  return lambdaClient;
};

let sesClient: SESv2Client | undefined;
export const ses = (): SESv2Client => {
  sesClient ??= new SESv2Client({ endpoint: config.endpointFor('SESV2'), region: config.region });
  return sesClient;
};
