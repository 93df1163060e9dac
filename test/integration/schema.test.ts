// The input helpers of lib/schema.ts read values the way clients send them in
// query strings, form bodies and JSON.
import { z } from 'zod';
import { absent, booleanish, idParam, intParam, intString, oneOrMany } from '../../lib/schema';

describe('booleanish', () => {
  it.each([true, 1, 'true', '1', 'on', 't', 'yes', ' TRUE '])('reads %j as true', (v) => {
    expect(booleanish.parse(v)).toBe(true);
  });
  it.each([false, 0, 'false', '0', 'off', 'f', 'no', ''])('reads %j as false', (v) => {
    expect(booleanish.parse(v)).toBe(false);
  });
  it('refuses anything else as not a boolean', () => {
    expect(booleanish.safeParse('maybe').error?.issues[0]?.message).toBe('must be a boolean');
  });
});

describe('absent', () => {
  it("reads null and '' as not given", () => {
    const field = absent(z.string());
    expect(field.parse(null)).toBeUndefined();
    expect(field.parse('')).toBeUndefined();
    expect(field.parse(undefined)).toBeUndefined();
    expect(field.parse('x')).toBe('x');
  });
});

describe('ids', () => {
  it('accepts up to 20 digits, and no id at all', () => {
    expect(idParam.parse('12345678901234567890')).toBe('12345678901234567890');
    expect(idParam.parse(undefined)).toBeUndefined();
    expect(idParam.safeParse('123456789012345678901').error?.issues[0]?.message).toBe('must be an id');
    expect(idParam.safeParse('12a').success).toBe(false);
  });
});

describe('oneOrMany', () => {
  it("reads a single value as a list of one, and keeps the list schema's bounds", () => {
    const ids = oneOrMany(z.array(z.string()).max(2));
    expect(ids.parse('1')).toEqual(['1']);
    expect(ids.parse(['1', '2'])).toEqual(['1', '2']);
    expect(ids.safeParse(['1', '2', '3']).success).toBe(false);
  });
});

describe('integers', () => {
  it('intString reads digit strings and numbers, and refuses other text', () => {
    expect(intString.parse(' 42 ')).toBe(42);
    expect(intString.parse(-3)).toBe(-3);
    expect(intString.safeParse('4.5').error?.issues[0]?.message).toBe('must be a number');
    expect(intString.safeParse(4.5).error?.issues[0]?.message).toBe('must be an integer');
  });
  it('intParam reads a query value as Number() does', () => {
    expect(intParam.min(0).parse('40')).toBe(40);
    expect(intParam.safeParse('forty').error?.issues[0]?.message).toBe('must be a number');
  });
});
