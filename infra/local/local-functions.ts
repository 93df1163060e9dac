// The service's functions as the local stack runs them: each one's bundle, environment and time limit, read from
// serverless.yml as serverless offline would read them, found by key (`instance`) or by name
// (`tootless-local-instance`, what the Lambda invoke API is given).
import { resolve } from 'node:path';
import { z } from 'zod';
import type { WorkerSetup } from './stream-worker';

export type Say = (level: 'notice' | 'warning' | 'error', line: string) => void;

/** The slice of the Serverless Framework's object the local stack reads and adjusts. */
export type Serverless = {
  serviceDir?: string;
  config: { servicePath?: string; serviceDir?: string };
  service: {
    custom?: Record<string, unknown>;
    provider: { region?: string; timeout?: number; memorySize?: number; environment?: Record<string, unknown>; websocketsApiRouteSelectionExpression?: string };
    getAllFunctions(): string[];
    getFunction(key: string): unknown;
  };
};

export const functionSchema = z
  .object({
    handler: z.string(),
    name: z.string(),
    url: z.union([z.boolean(), z.object({ invokeMode: z.string().optional() }).passthrough()]).optional(),
    streamRoutes: z.array(z.string()).optional(),
    timeout: z.number().optional(),
    memorySize: z.number().optional(),
    environment: z.record(z.unknown()).optional(),
    events: z.array(z.unknown()).optional(),
  })
  .passthrough();

export type FunctionDefinition = z.infer<typeof functionSchema>;

/** A function as the local stack runs it: its bundle, environment and time limit, as Lambda would configure it. */
export type LocalFunction = {
  key: string;
  /** Its deployed name, `tootless-local-<key>`. */
  name: string;
  setup: WorkerSetup;
  env: Record<string, string>;
  timeoutMs: number;
};

/** Runs one invocation of a function and settles with its result (the local stack's one runner, ./function-pool.ts). */
export type Invoke = (fn: LocalFunction, event: unknown) => Promise<unknown>;

const stringEnv = (values: Record<string, unknown> | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values ?? {})) if (v !== undefined && v !== null) out[k] = String(v);
  return out;
};

/** Where the built bundles are (serverless-esbuild's work folder, serverless offline's `location`). */
export const bundleRoot = (serverless: Serverless, location: string) =>
  resolve(serverless.serviceDir ?? serverless.config.serviceDir ?? serverless.config.servicePath ?? '.', location);

/** One function of the service as the local stack runs it. */
export function localFunction(serverless: Serverless, root: string, key: string, fn: FunctionDefinition): LocalFunction {
  const { service } = serverless;
  const region = service.provider.region ?? 'us-east-1';
  const inherited: Record<string, string> = {};
  // As serverless-offline: the AWS_* variables of this process, then the function's own.
  for (const [k, v] of Object.entries(process.env)) if (k.startsWith('AWS_') && v !== undefined) inherited[k] = v;
  const dot = fn.handler.lastIndexOf('.');
  const memoryMb = fn.memorySize ?? service.provider.memorySize ?? 1024;
  return {
    key,
    name: fn.name,
    setup: { bundle: `${resolve(root, fn.handler.slice(0, dot))}.mjs`, exportName: fn.handler.slice(dot + 1), functionName: fn.name, memoryMb, region },
    env: {
      ...inherited,
      AWS_REGION: region,
      AWS_DEFAULT_REGION: region,
      AWS_LAMBDA_FUNCTION_NAME: fn.name,
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb),
      _HANDLER: fn.handler,
      ...stringEnv(service.provider.environment),
      ...stringEnv(fn.environment),
      IS_OFFLINE: 'true',
    },
    timeoutMs: (fn.timeout ?? service.provider.timeout ?? 6) * 1000,
  };
}

/** Every function of the service, made once each on first use; forgotten when the bundles are rebuilt. */
export class LocalFunctions {
  private readonly byKeyMade = new Map<string, LocalFunction>();
  private names: Map<string, string> | undefined;

  constructor(
    private readonly serverless: Serverless,
    private readonly root: string,
  ) {}

  keys(): string[] {
    return this.serverless.service.getAllFunctions();
  }

  definition(key: string): FunctionDefinition {
    return functionSchema.parse(this.serverless.service.getFunction(key));
  }

  byKey(key: string): LocalFunction | undefined {
    let fn = this.byKeyMade.get(key);
    if (!fn) {
      if (!this.keys().includes(key)) return undefined;
      fn = localFunction(this.serverless, this.root, key, this.definition(key));
      this.byKeyMade.set(key, fn);
    }
    return fn;
  }

  /** By deployed name (`tootless-local-sweeper`) or by its ARN, as Lambda's Invoke takes it. */
  byName(name: string): LocalFunction | undefined {
    if (!this.names) this.names = new Map(this.keys().map((key) => [this.definition(key).name, key]));
    const bare = name.startsWith('arn:') ? (name.split(':')[6] ?? '') : name;
    const key = this.names.get(bare);
    return key === undefined ? undefined : this.byKey(key);
  }

  forget(): void {
    this.byKeyMade.clear();
  }
}
