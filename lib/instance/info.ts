// Gathers what the instance endpoints show, in as few round trips as possible.
import { recentInstanceSettings } from '../db/instance';
import { MONTH_DAYS, activeUsers } from '../db/activity';
import { contactAccount } from './contact';
import { instanceStats } from '../db/stats';

export async function instanceFactsV1() {
  const settings = await recentInstanceSettings();
  const [stats, contact] = await Promise.all([instanceStats(), contactAccount(settings)]);
  return { settings, stats, contact };
}

export async function instanceFactsV2() {
  const settings = await recentInstanceSettings();
  const [activeMonth, contact] = await Promise.all([activeUsers(MONTH_DAYS), contactAccount(settings)]);
  return { settings, activeMonth, contact };
}

/** Mastodon lets caches keep the instance entity for 3 minutes. */
export const INSTANCE_CACHE_CONTROL = 'public, max-age=180';
