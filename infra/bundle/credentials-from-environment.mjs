// Stands in for @aws-sdk/credential-provider-node in the function bundles (serverless.yml,
// custom.esbuild.alias). Every SDK client's runtime config imports that package's default credential
// chain (environment, SSO, INI profiles, processes, web identity, container and instance metadata),
// and with it the nested STS and SSO clients: about 90 kB minified in every function, never called,
// since lib/aws/clients.ts gives each client its credentials (the clients import `defaultProvider` alone). A Lambda function's credentials are in
// its environment, the chain's first link; this stand-in is that link alone, the SDK's own fromEnv.
// test/integration/bundle-stand-ins.test.ts compares it with the chain on the environment's credentials.
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init = {}) => fromEnv(init);
