import { newId, timeOfId } from '../../lib/ids';

describe('newId', () => {
  it('never repeats within one process, even for 65,536 ids of one millisecond', () => {
    const at = Date.UTC(2026, 0, 1);
    const ids = Array.from({ length: 65_536 }, () => newId(at));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => timeOfId(id).getTime() === at)).toBe(true);
  });
});
