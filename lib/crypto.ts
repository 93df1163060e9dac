import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Tokens and codes are high-entropy random strings: one SHA-256 is the right hash for them. */
export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

export const hmac = (secret: string, value: string): string => createHmac('sha256', secret).update(value).digest('base64url');

export const safeEqual = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};
