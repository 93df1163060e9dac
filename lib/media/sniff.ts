// Recognises the audio and video containers Mastodon accepts from their bytes
// (never by file name or declared type), and checks the container's own structure
// over the whole file, since they are stored as uploaded (there is no transcoder
// here): a magic number followed by anything (`ID3` then an HTML page) is not a
// file of that type. What is checked, per container:
// - MP3 / AAC (ADTS): an optional ID3v2 tag of the size its header says, then MPEG
//   audio frames (or ADTS frames) back to back to the end, each header valid and its
//   length computed from it, two whole ones at least; only ID3v1/APE tags may follow,
//   or a cut-off last frame.
// - MP4 / MOV / M4A / 3GP (ISO base media): top-level boxes that tile the file, the
//   first `ftyp`, one `moov`.
// - WebM / Matroska: the EBML header with DocType `webm` or `matroska`, then a Segment.
// - Ogg: pages that tile the file (capture pattern, version 0, segment table), the
//   first one beginning a stream.
// - FLAC: the STREAMINFO block first, metadata blocks up to the last one, then a frame sync.
// - WAV: RIFF chunks within the declared size, with `fmt ` and `data`.
// Images are recognised by sharp, which decodes and re-encodes them.

export type Sniffed = { contentType: string; extension: string };

const ascii = (data: Buffer, at: number, text: string) =>
  data.length >= at + text.length && data.toString('latin1', at, at + text.length) === text;

/** ISO base media brands that are still images (HEIC/AVIF), not video. */
const IMAGE_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1', 'avif', 'avis']);

// ---- MPEG audio (MP3) and ADTS (AAC) ----

const KBPS: Record<string, number[]> = {
  'v1-l1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  'v1-l2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  'v1-l3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  'v2-l1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  'v2-l2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES = { v1: [44100, 48000, 32000], v2: [22050, 24000, 16000], 'v2.5': [11025, 12000, 8000] } as const;

/** The length of the MPEG audio frame whose header is at `at`, or undefined when there is no valid header there. */
export function mpegFrameLength(data: Buffer, at: number): number | undefined {
  if (at + 4 > data.length || data[at] !== 0xff) return undefined;
  const b1 = data[at + 1]!;
  const b2 = data[at + 2]!;
  if ((b1 & 0xe0) !== 0xe0) return undefined;
  const version = (b1 >> 3) & 3; // 0: 2.5, 1: reserved, 2: 2, 3: 1
  const layer = (b1 >> 1) & 3; // 1: III, 2: II, 3: I
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  // Free-format bitrate (0) gives no length to check; 15 and the reserved values are invalid.
  if (version === 1 || layer === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const v = version === 3 ? 'v1' : version === 2 ? 'v2' : 'v2.5';
  const l = layer === 3 ? 'l1' : layer === 2 ? 'l2' : 'l3';
  const table = v === 'v1' ? KBPS[`v1-${l}`]! : l === 'l1' ? KBPS['v2-l1']! : KBPS['v2-l2']!;
  const bitrate = table[bitrateIndex]! * 1000;
  const rate = SAMPLE_RATES[v][rateIndex]!;
  const padding = (b2 >> 1) & 1;
  if (l === 'l1') return (Math.floor((12 * bitrate) / rate) + padding) * 4;
  const perFrame = l === 'l3' && v !== 'v1' ? 72 : 144;
  return Math.floor((perFrame * bitrate) / rate) + padding;
}

/** The length of the ADTS (AAC) frame whose header is at `at`, or undefined. */
function adtsFrameLength(data: Buffer, at: number): number | undefined {
  if (at + 7 > data.length || data[at] !== 0xff || (data[at + 1]! & 0xf6) !== 0xf0) return undefined;
  if (((data[at + 2]! >> 2) & 0x0f) > 12) return undefined;
  const length = ((data[at + 3]! & 0x03) << 11) | (data[at + 4]! << 3) | (data[at + 5]! >> 5);
  const header = data[at + 1]! & 1 ? 7 : 9;
  return length > header ? length : undefined;
}

/** Tags that may close an MP3 after its frames: ID3v1 (`TAG`, 128 bytes), APEv2, Lyrics3. */
const isTrailingTag = (data: Buffer, at: number) => ascii(data, at, 'TAG') || ascii(data, at, 'APETAGEX') || ascii(data, at, 'LYRICSBEGIN');

/** A file of less than this many whole frames is no audio stream (and a cut-off frame alone would hide anything). */
const MIN_FRAMES = 2;

/** Frames back to back from `at` to the end of the file, at least MIN_FRAMES whole ones (a last one may be cut off). */
function framesToEnd(data: Buffer, at: number, frameLength: (data: Buffer, at: number) => number | undefined): boolean {
  let frames = 0;
  while (at < data.length) {
    const length = frameLength(data, at);
    if (length === undefined) return frames >= MIN_FRAMES && isTrailingTag(data, at);
    if (at + length <= data.length) frames += 1;
    at += length;
  }
  return frames >= MIN_FRAMES;
}

/** Where the audio after an ID3v2 tag starts (the header's syncsafe size, a footer, zero padding), or undefined. */
function afterId3(data: Buffer): number | undefined {
  if (data.length < 10 || !ascii(data, 0, 'ID3')) return undefined;
  const major = data[3]!;
  if (major < 2 || major > 4 || data[4] === 0xff) return undefined;
  const sizeBytes = [data[6]!, data[7]!, data[8]!, data[9]!];
  if (sizeBytes.some((b) => b >= 0x80)) return undefined;
  const size = sizeBytes.reduce((n, b) => n * 128 + b, 0);
  let at = 10 + size + (major === 4 && data[5]! & 0x10 ? 10 : 0);
  if (at > data.length) return undefined;
  while (at < data.length && data[at] === 0) at += 1;
  return at;
}

// ---- ISO base media (MP4, MOV, M4A, 3GP) ----

const isBoxType = (data: Buffer, at: number) => {
  for (let i = at; i < at + 4; i++) if (data[i]! < 0x20 || data[i]! > 0x7e) return false;
  return true;
};

/** Top-level boxes tiling the whole file, `ftyp` first and a `moov` among them. */
function isoBoxesValid(data: Buffer): boolean {
  let at = 0;
  let moov = false;
  while (at < data.length) {
    if (at + 8 > data.length || !isBoxType(data, at + 4)) return false;
    const type = data.toString('latin1', at + 4, at + 8);
    if (at === 0 && type !== 'ftyp') return false;
    let size = data.readUInt32BE(at);
    if (size === 1) {
      if (at + 16 > data.length) return false;
      const large = data.readBigUInt64BE(at + 8);
      if (large > BigInt(data.length - at)) return false;
      size = Number(large);
      if (size < 16) return false;
    } else if (size === 0) {
      size = data.length - at; // to the end of the file
    } else if (size < 8) {
      return false;
    }
    if (at + size > data.length) return false;
    if (type === 'moov') moov = true;
    at += size;
  }
  return moov;
}

// ---- EBML (WebM, Matroska) ----

/** An EBML variable-length integer at `at`: its value and length; `unknown` for a size of all ones. */
function vint(data: Buffer, at: number, keepMarker = false): { value: number; length: number; unknown: boolean } | undefined {
  const first = data[at];
  if (first === undefined || first === 0) return undefined;
  const length = Math.clz32(first) - 23;
  if (length > 8 || at + length > data.length) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + data[at + i]!;
    if (data[at + i] !== 0xff) allOnes = false;
  }
  return { value, length, unknown: allOnes };
}

const EBML_HEADER = 0x1a45dfa3;
const DOC_TYPE = 0x4282;
const SEGMENT = 0x18538067;

/** The EBML header (DocType `webm` or `matroska`), then a Segment that fits in the file. */
function ebmlValid(data: Buffer): 'webm' | 'matroska' | undefined {
  const id = vint(data, 0, true);
  const size = id && vint(data, id.length);
  if (!id || !size || id.value !== EBML_HEADER || size.unknown) return undefined;
  const bodyStart = id.length + size.length;
  const bodyEnd = bodyStart + size.value;
  if (bodyEnd > data.length) return undefined;
  let docType: string | undefined;
  for (let at = bodyStart; at < bodyEnd; ) {
    const childId = vint(data, at, true);
    const childSize = childId && vint(data, at + childId.length);
    if (!childId || !childSize || childSize.unknown) return undefined;
    const start = at + childId.length + childSize.length;
    if (start + childSize.value > bodyEnd) return undefined;
    if (childId.value === DOC_TYPE) docType = data.toString('latin1', start, start + childSize.value).replace(/\0+$/, '');
    at = start + childSize.value;
  }
  if (docType !== 'webm' && docType !== 'matroska') return undefined;
  const segment = vint(data, bodyEnd, true);
  const segmentSize = segment && vint(data, bodyEnd + segment.length);
  if (!segment || !segmentSize || segment.value !== SEGMENT) return undefined;
  if (!segmentSize.unknown && bodyEnd + segment.length + segmentSize.length + segmentSize.value > data.length) return undefined;
  return docType;
}

// ---- Ogg, FLAC, WAV ----

/** Ogg pages tiling the whole file, the first beginning a stream. */
function oggPagesValid(data: Buffer): boolean {
  let at = 0;
  while (at < data.length) {
    if (at + 27 > data.length || !ascii(data, at, 'OggS') || data[at + 4] !== 0) return false;
    if (at === 0 && !(data[5]! & 0x02)) return false;
    const segments = data[at + 26]!;
    if (at + 27 + segments > data.length) return false;
    let body = 0;
    for (let i = 0; i < segments; i++) body += data[at + 27 + i]!;
    at += 27 + segments + body;
    if (at > data.length) return false;
  }
  return true;
}

/** STREAMINFO first, metadata blocks up to the one marked last, then a frame's sync code. */
function flacValid(data: Buffer): boolean {
  let at = 4;
  for (let first = true; ; first = false) {
    if (at + 4 > data.length) return false;
    const last = (data[at]! & 0x80) !== 0;
    const type = data[at]! & 0x7f;
    const length = data.readUIntBE(at + 1, 3);
    if (type === 127 || (first && (type !== 0 || length !== 34))) return false;
    at += 4 + length;
    if (at > data.length) return false;
    if (last) break;
  }
  return at + 2 <= data.length && data[at] === 0xff && (data[at + 1]! & 0xfe) === 0xf8;
}

/** RIFF chunks within the size the RIFF header declares, a `fmt ` of at least 16 bytes and a `data` among them. */
function wavValid(data: Buffer): boolean {
  const end = 8 + data.readUInt32LE(4);
  if (end > data.length + 1) return false;
  const limit = Math.min(end, data.length);
  let fmt = false;
  let pcm = false;
  for (let at = 12; at + 8 <= limit; ) {
    const id = data.toString('latin1', at, at + 4);
    const size = data.readUInt32LE(at + 4);
    if (!isBoxType(data, at)) return false;
    if (id === 'fmt ') fmt = size >= 16;
    if (id === 'data') pcm = true;
    // A data chunk may be cut short by a recorder that stopped; nothing may follow it then.
    if (at + 8 + size > limit) return id === 'data' && fmt;
    at += 8 + size + (size & 1);
  }
  return fmt && pcm;
}

export function sniffAudioVideo(data: Buffer): Sniffed | undefined {
  if (ascii(data, 4, 'ftyp')) {
    const brand = data.toString('latin1', 8, 12);
    if (IMAGE_BRANDS.has(brand) || !isoBoxesValid(data)) return undefined;
    if (brand === 'qt  ') return { contentType: 'video/quicktime', extension: 'mov' };
    if (brand === 'M4A ' || brand === 'M4B ') return { contentType: 'audio/mp4', extension: 'm4a' };
    if (brand.startsWith('3g')) return { contentType: 'audio/3gpp', extension: '3gp' };
    return { contentType: 'video/mp4', extension: 'mp4' };
  }
  if (data.length >= 4 && data.readUInt32BE(0) === EBML_HEADER) {
    const docType = ebmlValid(data);
    if (docType === 'webm') return { contentType: 'video/webm', extension: 'webm' };
    return docType === 'matroska' ? { contentType: 'video/x-matroska', extension: 'mkv' } : undefined;
  }
  if (ascii(data, 0, 'OggS')) return oggPagesValid(data) ? { contentType: 'audio/ogg', extension: 'ogg' } : undefined;
  if (ascii(data, 0, 'fLaC')) return flacValid(data) ? { contentType: 'audio/flac', extension: 'flac' } : undefined;
  if (ascii(data, 0, 'RIFF') && ascii(data, 8, 'WAVE')) return wavValid(data) ? { contentType: 'audio/wave', extension: 'wav' } : undefined;
  const audioAt = ascii(data, 0, 'ID3') ? afterId3(data) : 0;
  if (audioAt === undefined) return undefined;
  // MPEG audio frame sync: 11 set bits. Layer bits 00 mean ADTS AAC, anything else MP3.
  if (audioAt + 4 <= data.length && data[audioAt] === 0xff && (data[audioAt + 1]! & 0xe0) === 0xe0) {
    if ((data[audioAt + 1]! & 0x06) === 0) return framesToEnd(data, audioAt, adtsFrameLength) ? { contentType: 'audio/aac', extension: 'aac' } : undefined;
    return framesToEnd(data, audioAt, mpegFrameLength) ? { contentType: 'audio/mpeg', extension: 'mp3' } : undefined;
  }
  return undefined;
}
