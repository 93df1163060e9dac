// multipart/form-data bodies, as apps send uploads and profile edits: read by the runtime's own
// parser (Response.formData()) into the same bracket-notation object as a form, within limits
// each refused with its own status and before anything is written.
import { handler as createMedia } from '../../functions/media/create';
import { handler as updateCredentials } from '../../functions/accounts/update_credentials';
import { parseBody } from '../../lib/http/body';
import { aUser } from '../support/factories';
import { buildEvent, call } from '../support/http';
import { multipart, type Part } from '../support/multipart';

process.env.EXPOSE_METRICS = '1';

const patchProfile = async (token: string, parts: Record<string, Part>) =>
  call(updateCredentials, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', token, body: await multipart(parts) });

const displayName = async (token: string) =>
  (await call(updateCredentials, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', token, json: {} })).body.display_name;

describe('a multipart body', () => {
  it('is read in bracket notation, with UTF-8 text, as a Mastodon app sends a profile edit', async () => {
    const { token } = await aUser();
    const res = await patchProfile(token, {
      display_name: 'Zoë 🐘',
      note: 'first line\nsecond',
      'fields_attributes[0][name]': 'Site',
      'fields_attributes[0][value]': 'https://example.com',
      'fields_attributes[1][name]': 'Pronouns',
      'fields_attributes[1][value]': 'they/them',
    });
    expect(res.status).toBe(200);
    expect(res.body.display_name).toBe('Zoë 🐘');
    // A form's line breaks travel as CRLF (the HTML standard's encoding), and are kept as sent.
    expect(res.body.source.note).toBe('first line\r\nsecond');
    expect(res.body.fields.map((f: { name: string }) => f.name)).toEqual(['Site', 'Pronouns']);
  });

  it('gives each file its name, its type, and text/plain when the part names none (as busboy did)', async () => {
    const boundary = 'b0undary';
    const data = Buffer.from(
      [
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cat.png"\r\nContent-Type: image/png\r\n\r\nPNGDATA\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="thumbnail"; filename="t.bin"\r\n\r\nxyz\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="focus"\r\n\r\n0.5,-0.5\r\n--${boundary}--\r\n`,
      ].join(''),
    );
    const event = buildEvent({ method: 'POST', path: '/api/v1/media', body: { data, contentType: `multipart/form-data; boundary=${boundary}` } });
    const parsed = await parseBody(event);
    expect(parsed).toEqual({
      focus: '0.5,-0.5',
      file: { kind: 'file', filename: 'cat.png', contentType: 'image/png', data: Buffer.from('PNGDATA') },
      thumbnail: { kind: 'file', filename: 't.bin', contentType: 'text/plain', data: Buffer.from('xyz') },
    });
  });

  it('may hold 1,000 fields; the 1,001st is refused with 413 and nothing changes', async () => {
    const { token } = await aUser();
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x${i}`, 'y']));
    const ok = await patchProfile(token, { display_name: 'Kept', ...fields(999) });
    expect(ok.status).toBe(200);
    const over = await patchProfile(token, { display_name: 'Changed', ...fields(1000) });
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ error: 'Too many form fields' });
    expect(over.headers['x-db-writes']).toBe('0');
    expect(await displayName(token)).toBe('Kept');
  });

  it('refuses a field name over 100 bytes or a value over 1 MiB with 413, and takes one of exactly 100 bytes', async () => {
    const { token } = await aUser();
    const name = await patchProfile(token, { display_name: 'Changed', ['n'.repeat(101)]: 'v' });
    expect(name.status).toBe(413);
    expect(name.body).toEqual({ error: 'A form field is too large' });
    const value = await patchProfile(token, { display_name: 'Changed', note: 'n'.repeat(1024 * 1024 + 1) });
    expect(value.status).toBe(413);
    expect(value.body).toEqual({ error: 'A form field is too large' });
    expect(await displayName(token)).not.toBe('Changed');
    const exact = await patchProfile(token, { display_name: 'Exact', ['n'.repeat(100)]: 'v' });
    expect(exact.status).toBe(200);
    expect(exact.body.display_name).toBe('Exact');
  });

  it('refuses a fifth file with 422 before anything is stored', async () => {
    const { token } = await aUser();
    const file = (i: number): Part => ({ data: Buffer.from(`file ${i}`), filename: `f${i}.png`, type: 'image/png' });
    const res = await call(createMedia, {
      method: 'POST',
      path: '/api/v1/media',
      token,
      body: await multipart({ file: file(0), a: file(1), b: file(2), c: file(3), d: file(4) }),
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'Too many files' });
    expect(res.headers['x-db-writes']).toBe('0');
  });
});
