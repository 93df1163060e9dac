// The sweeper's watermarks: per job, the last bucket (minute) it has fully
// processed. A watermark only moves forward, so overlapping runs never send it back.
import { z } from 'zod';
import * as keys from './keys';
import { getItem, updateItem } from './table';

const watermarkItem = z.object({ lastMinute: z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/) });

/** The last minute (`YYYY-MM-DDTHH:MM`) `job` has processed, if it ever ran. */
export async function sweeperWatermark(job: string): Promise<string | undefined> {
  const mark = await getItem(keys.sweeperWatermark(job), watermarkItem, true);
  return mark?.lastMinute;
}

/** Moves `job`'s watermark to `minute`, unless it is already there or later. */
export async function advanceSweeperWatermark(job: string, minute: string): Promise<void> {
  await updateItem(
    {
      Key: keys.sweeperWatermark(job),
      UpdateExpression: 'SET lastMinute = :m',
      ConditionExpression: 'attribute_not_exists(lastMinute) OR lastMinute < :m',
      ExpressionAttributeValues: { ':m': minute },
    },
    watermarkItem,
  );
}
