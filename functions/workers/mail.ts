// Worker: delivers queued e-mail (confirmation links) through lib/mail.
import { sendMail } from '../../lib/mail';
import { worker } from '../../lib/queue/worker';

export const handler = worker('mail', sendMail);
