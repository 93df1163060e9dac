// The command-line side of the operator's federation commands (`domains ...`,
// `federation ...`): arguments and options checked here, the work done by
// ./federation_commands.ts. lib/admin/cli.ts hands these two groups over.
import { AdminError } from './commands';
import {
  blockDomainCommand,
  deadLettersCommand,
  failingServersCommand,
  listDomainBlocksCommand,
  refetchAccountCommand,
  retryDeadLettersCommand,
  unblockDomainCommand,
} from './federation_commands';

export const FEDERATION_USAGE = `Domain blocks
  domains block <domain> [--severity suspend|silence] [--public-comment <text>] [--private-comment <text>]
                                     block a remote domain and its subdomains (suspend when no severity is given):
                                     suspend refuses its requests, sends and fetches nothing, and removes its
                                     accounts with their statuses and follows; silence keeps its statuses out of
                                     the public timelines and its mentions to its accounts' followers
  domains unblock <domain>           remove the block
  domains list                       list the blocked domains

Federation
  federation servers                 servers failing deliveries (consecutive failures, unavailable until)
  federation dead-letters            deliveries given up on (the deliver dead-letter queue; QUEUE_URL_DELIVER_DLQ)
  federation retry                   send the dead letters back to the deliver queue
  federation refetch <user@domain>   fetch a remote account's actor document again`;

export type FederationFlags = { severity?: string; 'public-comment'?: string; 'private-comment'?: string };

const need = (value: string | undefined, what: string): string => {
  if (value === undefined || value.trim() === '') throw new AdminError(`Missing ${what}\n\n${FEDERATION_USAGE}`);
  return value;
};

const noMore = (rest: string[]) => {
  if (rest.length > 0) throw new AdminError(`Unexpected argument ${JSON.stringify(rest[0])}\n\n${FEDERATION_USAGE}`);
};

const noBlockFlags = (flags: FederationFlags) => {
  if (flags.severity !== undefined || flags['public-comment'] !== undefined || flags['private-comment'] !== undefined) {
    throw new AdminError(`Options --severity, --public-comment and --private-comment belong to \`domains block\`\n\n${FEDERATION_USAGE}`);
  }
};

/** Runs one `domains` or `federation` command; undefined for a command these groups do not have. */
export async function federationCommand(group: 'domains' | 'federation', command: string | undefined, rest: string[], flags: FederationFlags): Promise<string | undefined> {
  const [arg, ...extra] = rest;
  if (group === 'domains' && command === 'block') {
    noMore(extra);
    return blockDomainCommand(need(arg, 'the domain'), {
      severity: flags.severity,
      publicComment: flags['public-comment'],
      privateComment: flags['private-comment'],
      settle: true,
    });
  }
  noBlockFlags(flags);
  const withArgument: Record<string, Record<string, [string, (value: string) => Promise<string>]>> = {
    domains: { unblock: ['the domain', unblockDomainCommand] },
    federation: { refetch: ['the account (user@domain)', refetchAccountCommand] },
  };
  const single = command && Object.hasOwn(withArgument[group]!, command) ? withArgument[group]![command] : undefined;
  if (single) {
    noMore(extra);
    return single[1](need(arg, single[0]));
  }
  const bare: Record<string, Record<string, () => Promise<string>>> = {
    domains: { list: listDomainBlocksCommand },
    federation: { servers: () => failingServersCommand(), 'dead-letters': deadLettersCommand, retry: retryDeadLettersCommand },
  };
  const run = command && Object.hasOwn(bare[group]!, command) ? bare[group]![command] : undefined;
  if (!run) return undefined;
  noMore(rest);
  return run();
}
