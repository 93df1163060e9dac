// Federation, part 2, as people meet it: every interaction between a person on
// gamma.test and a person on delta.test, both servers ours, both driven with
// masto, in both directions. Each area's steps live in test/e2e/federation/<area>.ts
// and make their own users, so that one area runs alone with `-t '<area>'`; the
// stacks start once for all of them (test/e2e/federation/pair.ts).
import type { Stack } from '../support/stack';
import { pairFromEnv, startBoth } from './federation/pair';
import { likesBoostsSteps } from './federation/likes_boosts';
import { pollsSteps } from './federation/polls';
import { blocksReportsSteps } from './federation/blocks_reports';
import { threadsSteps } from './federation/threads';
import { operatorSteps } from './federation/operator';
import { visibilitySteps } from './federation/visibility';
import { editsSteps } from './federation/edits';
import { mediaSteps } from './federation/media';
import { moderationSteps } from './federation/moderation';

const SERVERS = pairFromEnv([
  { host: '127.0.0.4', port: 80, publicHost: 'gamma.test' },
  { host: '127.0.0.5', port: 80, publicHost: 'delta.test' },
]);

describe('two servers of ours: gamma.test and delta.test', () => {
  let stacks: [Stack, Stack] | undefined;
  const pair = (): [Stack, Stack] => {
    if (!stacks) throw new Error('the stacks did not start (see beforeAll)');
    return stacks;
  };

  beforeAll(async () => {
    stacks = await startBoth(SERVERS);
    process.stdout.write(`${SERVERS[0].publicHost} answered in ${(stacks[0].startupMs / 1000).toFixed(1)} s, ${SERVERS[1].publicHost} in ${(stacks[1].startupMs / 1000).toFixed(1)} s\n`);
  }, 240_000);

  afterAll(async () => {
    await Promise.all((stacks ?? []).map((s) => s.stop()));
  }, 60_000);

  it('serves each stack under its own name', () => {
    expect(pair().map((s) => s.domain)).toEqual(SERVERS.map((s) => s.publicHost));
  });

  pollsSteps(pair);
  likesBoostsSteps(pair);
  blocksReportsSteps(pair);
  threadsSteps(pair);
  visibilitySteps(pair);
  editsSteps(pair);
  mediaSteps(pair);
  moderationSteps(pair);
  // Last: suspending the peer and turning on authorized fetch change the servers for every later step.
  operatorSteps(pair);
});
