// Recognises the audio and video containers Mastodon accepts, by their magic
// bytes (never by file name or declared type). Images are recognised by sharp.

export type Sniffed = { contentType: string; extension: string };

const ascii = (data: Buffer, at: number, text: string) =>
  data.length >= at + text.length && data.toString('latin1', at, at + text.length) === text;

/** ISO base media brands that are still images (HEIC/AVIF), not video. */
const IMAGE_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1', 'avif', 'avis']);

export function sniffAudioVideo(data: Buffer): Sniffed | undefined {
  if (ascii(data, 4, 'ftyp')) {
    const brand = data.toString('latin1', 8, 12);
    if (IMAGE_BRANDS.has(brand)) return undefined;
    if (brand === 'qt  ') return { contentType: 'video/quicktime', extension: 'mov' };
    if (brand === 'M4A ' || brand === 'M4B ') return { contentType: 'audio/mp4', extension: 'm4a' };
    if (brand.startsWith('3g')) return { contentType: 'audio/3gpp', extension: '3gp' };
    return { contentType: 'video/mp4', extension: 'mp4' };
  }
  if (data.length >= 4 && data.readUInt32BE(0) === 0x1a45dfa3) return { contentType: 'video/webm', extension: 'webm' };
  if (ascii(data, 0, 'OggS')) return { contentType: 'audio/ogg', extension: 'ogg' };
  if (ascii(data, 0, 'fLaC')) return { contentType: 'audio/flac', extension: 'flac' };
  if (ascii(data, 0, 'RIFF') && ascii(data, 8, 'WAVE')) return { contentType: 'audio/wave', extension: 'wav' };
  if (ascii(data, 0, 'ID3')) return { contentType: 'audio/mpeg', extension: 'mp3' };
  // MPEG audio frame sync: 11 set bits. Layer bits 00 mean ADTS AAC, anything else MP3.
  if (data.length >= 4 && data[0] === 0xff && ((data[1] ?? 0) & 0xe0) === 0xe0) {
    return ((data[1] ?? 0) & 0x06) === 0 ? { contentType: 'audio/aac', extension: 'aac' } : { contentType: 'audio/mpeg', extension: 'mp3' };
  }
  return undefined;
}
