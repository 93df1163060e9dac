// `npm run admin -- <command>`: the operator's command line (in the spirit of
// tootctl). It talks to the same table through lib/, configured by the same
// environment as the functions (STAGE, TABLE_NAME, AWS_ENDPOINT_URL_DYNAMODB, ...).
// On the local stage with no endpoint configured, it finds the local stack's
// dynalite (`npm start`) where infra/local/stack.ts puts it. The stage is never
// guessed for a table someone named: before any command it says on stderr which
// stage, table and endpoint it works on.
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { setCredentialsProvider } from '../aws';
import { config, StageNotSet } from '../config';
import { LOCAL_CREDENTIALS, localSettings } from '../local_stage';
import {
  AdminError,
  SETTING_KEYS,
  addRule,
  approve,
  confirmAccount,
  createAccount,
  listPending,
  removeRule,
  setDisabled,
  setSetting,
  showAccount,
  setAccountRole,
  reindexAdminAccounts,
  showSettings,
  addEmoji,
  removeEmoji,
  listEmojiCommand,
  deleteAppCommand,
  issueOperatorToken,
} from './commands';
import { federationCommand, FEDERATION_USAGE, type FederationFlags } from './federation_cli';
import { listReports, reindexReportsCommand, resolveReportCommand, showReport } from './report_commands';
import { trendsCommand, TRENDS_USAGE } from './trend_commands';
import { isKnownScope } from '../http/scopes';
import { announcementsCommand, ANNOUNCEMENTS_USAGE, type AnnouncementFlags } from './announcement_commands';
import { documentsCommand, DOCUMENTS_USAGE, type DocumentFlags } from './document_commands';

export const USAGE = `Usage: npm run admin -- <command> [arguments]

Accounts
  accounts create <username> --email <address> [--password <password>] [--admin] [--confirmed] [--approve]
                                     create a local account (a password is generated and printed when none is given)
  accounts confirm <username>        mark the account's e-mail address confirmed
  accounts approve <username>        approve an account waiting for approval
  accounts token <username> [--scopes "read write"]
                                     print a new access token of the account's (for scripts: the deploy's smoke test)
  accounts pending                   list the accounts waiting for approval
  accounts disable <username>        disable the account's login (its open streams end at once)
  accounts enable <username>         enable it again
  accounts show <username>           show the account's state
  accounts role <username> <role>    give the account a role: moderator, admin, owner, or none
  accounts reindex                   put accounts made before the admin API into its list

Applications
  apps delete <client_id>            delete an OAuth application, every access token it issued and their open streams

Instance settings
  settings show                      show every setting
  settings set <key> <value>         change one setting:
      registrations        open | approved | none
      email-confirmation   on | off
      public-preview       on | off
      domain-blocks-public on | off  (GET /api/v1/instance/domain_blocks lists the domain blocks)
      authorized-fetch     on | off  (ActivityPub documents only to signed requests)
      limited-federation   on | off  (federate only with the domains allowed through /api/v1/admin/domain_allows)
      title, short-description, description, contact-email   text ('' clears the optional ones)
      contact-username     a local username, or none
      languages            ISO 639-1 codes separated by commas, e.g. en,fr
      status-page-url      the https:// address of the server's status page, or none
  settings rules add <text>          add a rule
  settings rules remove <id>         remove a rule

Custom emoji
  emoji add <shortcode> <image file> [--category <name>] [--hidden]
                                     add an emoji (PNG, GIF or WebP, at most 256 KB; resized to fit 128×128)
  emoji remove <shortcode>           remove an emoji
  emoji list                         list the custom emoji

Reports
  reports list                       list the latest reports (filed here or received from other servers), newest first
  reports show <id>                  show a report
  reports resolve <id>               mark a report resolved
  reports reindex                    file reports stored before the moderators' queues into them (once, after upgrading)

${ANNOUNCEMENTS_USAGE}

${DOCUMENTS_USAGE}

${TRENDS_USAGE}

${FEDERATION_USAGE}

Environment: the functions' variables (STAGE, TABLE_NAME, AWS_ENDPOINT_URL_DYNAMODB, AWS_REGION, SECRETS_PATH, ...).
With none of STAGE, TABLE_NAME, SECRETS_PATH and AWS_ENDPOINT_URL(_DYNAMODB) set, or with STAGE=local and no
endpoint, the local stack's dynalite (npm start) is used. Any other table needs its STAGE:
  STAGE=prod SECRETS_PATH=/tootless/prod TABLE_NAME=<table> npm run admin -- <command>`;

export type Output = { out: (text: string) => void; err: (text: string) => void };

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * On the local stage with no endpoint configured, points at the local stack's emulators (and its defaults).
 * Without STAGE, the local stage is assumed only when nothing names anything else (a table, an endpoint, an
 * SSM path): then every read and write goes to the local stack's dynalite, which is local by construction.
 * Otherwise STAGE stays unset and the CLI refuses (main).
 */
export function applyLocalDefaults(env: NodeJS.ProcessEnv = process.env): void {
  if (!env.STAGE) {
    if (env.TABLE_NAME || env.SECRETS_PATH || env.AWS_ENDPOINT_URL_DYNAMODB || env.AWS_ENDPOINT_URL) return;
    env.STAGE = 'local';
  }
  if (env.STAGE !== 'local') return;
  if (env.AWS_ENDPOINT_URL_DYNAMODB || env.AWS_ENDPOINT_URL) return;
  const local = localSettings(env, root);
  env.AWS_ENDPOINT_URL_DYNAMODB = `http://${local.host}:${local.dynamoPort}`;
  env.TABLE_NAME ||= local.tableName;
  env.BASE_URL ||= local.baseUrl;
  env.QUEUE_MODE ||= 'lambda';
  env.LAMBDA_ENDPOINT ||= local.lambdaEndpoint;
  // Where open WebSocket connections are closed (disabling a login, deleting an app).
  env.STREAMING_URL ||= local.streamingUrl;
  // Frames go to the local WebSocket server, whatever name STREAMING_URL gives.
  env.STREAMING_MANAGEMENT_URL ||= local.streamingManagementUrl;
  env.AWS_REGION ||= 'us-east-1';
  if (!env.AWS_ACCESS_KEY_ID) {
    env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
    env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
  }
}

/** What the commands will read and write, said before they do: `stage prod, table tootless-prod, DynamoDB in eu-west-1`. */
export function target(): string {
  const endpoint = config.endpointFor('DYNAMODB');
  return `Stage ${config.stage}, table ${config.tableName}, DynamoDB ${endpoint ? `at ${endpoint}` : 'of AWS'} in ${config.region}`;
}

const need = (value: string | undefined, what: string): string => {
  if (value === undefined || value === '') throw new AdminError(`Missing ${what}\n\n${USAGE}`);
  return value;
};

const noMore = (rest: string[]) => {
  if (rest.length > 0) throw new AdminError(`Unexpected argument ${JSON.stringify(rest[0])}\n\n${USAGE}`);
};

/** Runs one command line; answers the process exit code. */
export async function main(argv: string[], io: Output): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        admin: { type: 'boolean' },
        confirmed: { type: 'boolean' },
        approve: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        category: { type: 'string' },
        hidden: { type: 'boolean' },
        severity: { type: 'string' },
        'public-comment': { type: 'string' },
        'private-comment': { type: 'string' },
        text: { type: 'string' },
        'starts-at': { type: 'string' },
        'ends-at': { type: 'string' },
        'all-day': { type: 'boolean' },
        timed: { type: 'boolean' },
        draft: { type: 'boolean' },
        scopes: { type: 'string' },
        'effective-date': { type: 'string' },
        html: { type: 'boolean' },
      },
    });
  } catch (err) {
    io.err(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return 1;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const [group, command, ...rest] = positionals;
  try {
    io.err(target());
  } catch (err) {
    if (!(err instanceof StageNotSet)) throw err;
    io.err(`${err.message}\nThe admin CLI assumes the local stack only when no table, endpoint or SSM path is named.`);
    return 1;
  }
  try {
    const output = await dispatch(group, command, rest, values);
    io.out(output);
    return 0;
  } catch (err) {
    if (err instanceof AdminError) {
      io.err(err.message);
      return 1;
    }
    const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB || process.env.AWS_ENDPOINT_URL;
    if (isConnectionError(err)) {
      io.err(`Cannot reach DynamoDB${endpoint ? ` at ${endpoint}` : ''}: is the local stack running (npm start)?`);
      return 1;
    }
    if (isNamed(err, 'ResourceNotFoundException')) {
      io.err(`Table ${process.env.TABLE_NAME ?? ''} not found${endpoint ? ` at ${endpoint}` : ''}.`);
      return 1;
    }
    io.err(`Failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

type Flags = { email?: string; password?: string; admin?: boolean; confirmed?: boolean; approve?: boolean; category?: string; hidden?: boolean; scopes?: string } & FederationFlags & AnnouncementFlags & DocumentFlags;

async function dispatch(group: string | undefined, command: string | undefined, rest: string[], flags: Flags): Promise<string> {
  const accountFlags = () => {
    if (flags.email !== undefined || flags.password !== undefined || flags.admin || flags.confirmed || flags.approve) {
      throw new AdminError(`Options --email, --password, --admin, --confirmed and --approve belong to \`accounts create\`\n\n${USAGE}`);
    }
  };
  if (group === 'accounts') {
    if (command === 'create') {
      const [username, ...extra] = rest;
      noMore(extra);
      const { output } = await createAccount({
        username: need(username, 'the username'),
        email: need(flags.email, '--email <address>'),
        password: flags.password,
        admin: flags.admin,
        confirmed: flags.confirmed,
        approve: flags.approve,
      });
      return output;
    }
    accountFlags();
    if (command === 'token') {
      const [username, ...extra] = rest;
      noMore(extra);
      const scopes = (flags.scopes ?? 'read write').split(/[\s,]+/).filter(Boolean);
      if (!scopes.every(isKnownScope)) throw new AdminError(`--scopes: unknown scope in "${flags.scopes}"`);
      return issueOperatorToken(need(username, 'the username'), scopes);
    }
    if (command === 'pending') {
      noMore(rest);
      return listPending();
    }
    if (command === 'reindex') {
      noMore(rest);
      return reindexAdminAccounts();
    }
    if (command === 'role') {
      const [username, role, ...extra] = rest;
      noMore(extra);
      return setAccountRole(need(username, 'the username'), need(role, 'the role (moderator, admin, owner or none)'));
    }
    const single: Record<string, (username: string) => Promise<string>> = {
      confirm: confirmAccount,
      approve,
      disable: (u) => setDisabled(u, true),
      enable: (u) => setDisabled(u, false),
      show: showAccount,
    };
    const run = command ? single[command] : undefined;
    if (run) {
      const [username, ...extra] = rest;
      noMore(extra);
      return run(need(username, 'the username'));
    }
  }
  if (group === 'apps' && command === 'delete') {
    accountFlags();
    const [clientId, ...extra] = rest;
    noMore(extra);
    return deleteAppCommand(need(clientId, 'the client_id'));
  }
  if (group === 'settings') {
    accountFlags();
    if (command === 'show') {
      noMore(rest);
      return showSettings();
    }
    if (command === 'set') {
      const [key, value, ...extra] = rest;
      noMore(extra);
      const setting = need(key, `the setting (${SETTING_KEYS.join(', ')})`);
      if (value === undefined) throw new AdminError(`Missing the value of ${setting}\n\n${USAGE}`);
      return setSetting(setting, value);
    }
    if (command === 'rules') {
      const [action, arg, ...extra] = rest;
      noMore(extra);
      if (action === 'add') return addRule(need(arg, 'the rule text'));
      if (action === 'remove') return removeRule(need(arg, 'the rule id'));
      throw new AdminError(`Unknown rules action ${JSON.stringify(action ?? '')}: use add or remove\n\n${USAGE}`);
    }
  }
  if (group === 'emoji') {
    accountFlags();
    if (command !== 'add' && (flags.category !== undefined || flags.hidden)) {
      throw new AdminError(`Options --category and --hidden belong to \`emoji add\`\n\n${USAGE}`);
    }
    if (command === 'add') {
      const [shortcode, file, ...extra] = rest;
      noMore(extra);
      return addEmoji(need(shortcode, 'the shortcode'), need(file, 'the image file'), { category: flags.category, hidden: flags.hidden });
    }
    if (command === 'remove') {
      const [shortcode, ...extra] = rest;
      noMore(extra);
      return removeEmoji(need(shortcode, 'the shortcode'));
    }
    if (command === 'list') {
      noMore(rest);
      return listEmojiCommand();
    }
  }
  if (group === 'reports') {
    accountFlags();
    const [id, ...extra] = rest;
    if (command === 'list') {
      noMore(rest);
      return listReports();
    }
    if (command === 'reindex') {
      noMore(rest);
      return reindexReportsCommand();
    }
    const single: Record<string, (id: string) => Promise<string>> = { show: showReport, resolve: resolveReportCommand };
    const run = command ? single[command] : undefined;
    if (run) {
      noMore(extra);
      return run(need(id, 'the report id'));
    }
  }
  if (group === 'announcements') {
    accountFlags();
    const output = await announcementsCommand(command, rest, flags);
    if (output !== undefined) return output;
  }
  if (group === 'terms' || group === 'privacy-policy') {
    accountFlags();
    const output = await documentsCommand(group, command, rest, flags);
    if (output !== undefined) return output;
  }
  if (group === 'trends') {
    accountFlags();
    const output = await trendsCommand(command, rest);
    if (output !== undefined) return output;
  }
  if (group === 'domains' || group === 'federation') {
    accountFlags();
    const output = await federationCommand(group, command, rest, flags);
    if (output !== undefined) return output;
  }
  const what = [group, command].filter(Boolean).join(' ');
  throw new AdminError(what ? `Unknown command ${JSON.stringify(what)}\n\n${USAGE}` : USAGE);
}

const isNamed = (err: unknown, name: string) => err instanceof Error && err.name === name;

/** Network failures surface as Node errors (ECONNREFUSED, ...), possibly wrapped by the SDK. */
function isConnectionError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = 'code' in e ? e.code : undefined;
    if (typeof code === 'string' && ['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'EHOSTUNREACH', 'ETIMEDOUT'].includes(code)) return true;
    if (e.name === 'AggregateError' && 'errors' in e && Array.isArray(e.errors)) return e.errors.some(isConnectionError);
    e = e.cause;
  }
  return false;
}

const isEntryPoint = () => {
  const script = process.argv[1];
  return script !== undefined && import.meta.url === pathToFileURL(resolve(script)).href;
};

if (isEntryPoint()) {
  // The SDK's notice about its future Node.js support is for developers, not for
  // an operator reading this command's output.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  applyLocalDefaults();
  // lib/aws signs with the environment's credentials, as in Lambda. An operator's laptop has
  // profiles and SSO instead: the SDK's credential chain then (the CLI alone loads it).
  if (!process.env.AWS_ACCESS_KEY_ID) {
    const { defaultProvider } = await import('@aws-sdk/credential-provider-node');
    setCredentialsProvider(defaultProvider());
  }
  const io: Output = {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      io.err(`Failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    },
  );
}
