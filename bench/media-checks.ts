// Time the checks this server adds on the media paths, in this process (no emulator: they read nothing):
// - an upload's audio or video container walked over the whole file (lib/media/sniff.ts sniffAudioVideo), on the
//   largest upload the deployed path carries (4,519,936 bytes): an MP3 (frames of 417 bytes, the most headers to
//   read per byte), an MP4 (three boxes), an Ogg stream (pages of 282 bytes); and a file refused at its first bytes;
// - a received attachment's, avatar's or emoji's URL against the address guard's rules (lib/federation/guard.ts
//   passesUrlRules: parsing only, no DNS), once per URL a Note or actor names.
// Usage: npm run bench:media-checks
import { passesUrlRules } from '../lib/federation/guard';
import { MAX_UPLOAD_BYTES } from '../lib/http/limits';
import { sniffAudioVideo } from '../lib/media/sniff';
import { percentile, printTable } from './lib';

const frame = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x44]), Buffer.alloc(413)]);
const mp3 = Buffer.concat(Array.from({ length: Math.floor(MAX_UPLOAD_BYTES / frame.length) }, () => frame));
const box = (type: string, payload: Buffer) => {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.length);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
};
const mp4 = Buffer.concat([box('ftyp', Buffer.from('isom\0\0\x02\0', 'latin1')), box('moov', Buffer.alloc(1000)), box('mdat', Buffer.alloc(MAX_UPLOAD_BYTES - 1024))]);
const page = (flags: number) => Buffer.concat([Buffer.from('OggS', 'latin1'), Buffer.from([0, flags]), Buffer.alloc(20), Buffer.from([1, 255]), Buffer.alloc(255, 1)]);
const ogg = Buffer.concat([page(2), ...Array.from({ length: Math.floor(MAX_UPLOAD_BYTES / 282) - 1 }, () => page(0))]);
const html = Buffer.concat([Buffer.from('ID3\x04\0\0\0\0\0\0', 'latin1'), Buffer.alloc(MAX_UPLOAD_BYTES - 10, 0x3c)]);

function time(name: string, runs: number, run: () => unknown, bytes?: number) {
  for (let i = 0; i < Math.min(runs, 5); i++) run();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    run();
    ms.push(performance.now() - start);
  }
  return { case: name, bytes: bytes ?? '', runs, 'p50 ms': percentile(ms, 50).toFixed(4), 'max ms': Math.max(...ms).toFixed(4) };
}

const check = (data: Buffer, expected: boolean) => () => {
  if (Boolean(sniffAudioVideo(data)) !== expected) throw new Error('unexpected verdict');
};
printTable([
  time('MP3, 10,839 frames', 50, check(mp3, true), mp3.length),
  time('MP4, 3 boxes', 50, check(mp4, true), mp4.length),
  time('Ogg, 16,028 pages', 50, check(ogg, true), ogg.length),
  time('ID3 then no frame (refused)', 50, check(html, false), html.length),
  time('attachment URL, public https', 10_000, () => passesUrlRules('https://files.remote.example/media_attachments/files/1/original/a.png')),
  time('attachment URL, link-local literal', 10_000, () => passesUrlRules('http://169.254.169.254/latest/meta-data/x.png')),
]);
