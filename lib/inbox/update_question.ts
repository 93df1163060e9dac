// Update(Question) received from a remote actor: a poll's author sends its
// counts (Mastodon's DistributePollUpdateWorker, every few minutes after votes)
// and its end (`closed`). Only the author of the stored poll status may, from
// its own server; the counts and end are taken, and nothing else: an Update
// whose options differ is an edit of the poll, which this does not apply (it is
// ignored, and writes nothing).
import { pollById, refreshPollTallies } from '../db/polls';
import { remoteStatusIdByUri } from '../db/remote';
import { statusById } from '../db/statuses';
import { readQuestion } from '../federation/polls';
import { canonicalId, idsOf, type ApDocument } from '../federation/vocab';
import { onActorsServer, type Outcome, type Received } from './received';

export async function updateQuestion(received: Received, object: ApDocument): Promise<Outcome> {
  const uri = canonicalId(object.id);
  if (!uri || !onActorsServer(received, uri)) return 'ignored';
  if (idsOf(object.attributedTo)[0] !== received.actor.uri) return 'ignored';
  const statusId = await remoteStatusIdByUri(uri);
  const status = statusId ? await statusById(statusId, true) : undefined;
  if (!status || status.accountId !== received.actor.id || !status.pollId) return 'ignored';
  const poll = await pollById(status.pollId, true);
  const read = readQuestion(object);
  if (!poll || !poll.remote || read === 'none' || read === 'refused') return 'ignored';
  const sameOptions = read.multiple === poll.multiple && read.options.length === poll.options.length && read.options.every((o, i) => o.title === poll.options[i]!.title);
  if (!sameOptions) return 'ignored';
  const refreshed = await refreshPollTallies(poll, {
    counts: read.options.map((o) => o.votesCount),
    votesCount: read.votesCount,
    votersCount: read.votersCount,
    expiresAt: read.expiresAt,
  });
  return refreshed ? 'applied' : 'ignored';
}
