// Worker: delivers queued e-mail (confirmation links) through lib/mail.
import { z } from 'zod';
import { sendMail } from '../../lib/mail';
import { worker } from '../../lib/queue/worker';

export const mailMessage = z.object({
  to: z.string().email(),
  subject: z.string().min(1),
  text: z.string(),
  html: z.string().optional(),
});

export const handler = worker('mail', mailMessage, sendMail);
