// SES v2 SendEmail through its SDK client (lib/mail.ts).
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { config } from '../config';
import { baseSettings, clientFor } from './clients';
import { instrument } from './meter';

export type EmailInput = {
  FromEmailAddress: string;
  Destination: { ToAddresses: string[] };
  Content: { Simple: { Subject: { Data: string; Charset?: string }; Body: { Text?: { Data: string; Charset?: string }; Html?: { Data: string; Charset?: string } } } };
};

const ses = () =>
  clientFor('sesv2', config.endpointFor('SESV2'), () => {
    const client = new SESv2Client(baseSettings({ endpoint: config.endpointFor('SESV2') }));
    instrument(client.middlewareStack, 'ses');
    return client;
  });

/** SES v2 SendEmail. */
export async function sendEmail(input: EmailInput): Promise<void> {
  await ses().send(new SendEmailCommand(input));
}
