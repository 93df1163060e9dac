// Outgoing e-mail: SES in AWS; on the local stack each message is written as a
// JSON file under MAIL_DIR (and logged) so a developer can open the links.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sendEmail } from './aws/ses';
import { config } from './config';
import { log } from './log';

export type Mail = { to: string; subject: string; text: string; html?: string };

export async function sendMail(mail: Mail): Promise<void> {
  if (config.useSes) {
    await sendEmail({
      FromEmailAddress: config.mailFrom,
      Destination: { ToAddresses: [mail.to] },
      Content: {
        Simple: {
          Subject: { Data: mail.subject, Charset: 'UTF-8' },
          Body: { Text: { Data: mail.text, Charset: 'UTF-8' }, ...(mail.html ? { Html: { Data: mail.html, Charset: 'UTF-8' } } : {}) },
        },
      },
    });
    return;
  }
  await mkdir(config.mailDir, { recursive: true });
  const file = join(config.mailDir, `${Date.now()}-${mail.to.replace(/[^a-zA-Z0-9@._-]/g, '_')}.json`);
  await writeFile(file, JSON.stringify({ from: config.mailFrom, ...mail }, null, 2));
  log.info('mail written', { to: mail.to, subject: mail.subject, file });
}
