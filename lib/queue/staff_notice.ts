// Queuing a notice for the staff (a new sign-up or report) on the notify queue, where lib/moderation/staff_notices.ts
// tells them. Here, beside the queue's contract, so that the folders that make sign-ups and reports (lib/accounts,
// lib/reports, which lib/moderation itself uses) can queue one without importing lib/moderation.
import { log } from '../log';
import { enqueue } from './index';
import type { StaffNoticeMessage } from './messages';

/** Queues a notice for the notify worker; a failure is logged, never the caller's (the sign-up or report stands). */
export async function queueStaffNotice(notice: StaffNoticeMessage): Promise<void> {
  try {
    await enqueue('notify', notice);
  } catch (err) {
    log.error('staff notice not queued', { notice: notice.notice, err });
  }
}
