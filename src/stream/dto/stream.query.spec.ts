import { RE2JS } from 're2js';
import { EVENT_ID as CHANGE_ID } from '../../events/dto/events.query.js';
import { EVENT_ID, RESUME_ID_PATTERN, parseEventId } from './stream.query.js';

describe('the resume id the document states', () => {
  const re2 = RE2JS.compile(RESUME_ID_PATTERN);
  const ecma = new RegExp(RESUME_ID_PATTERN);

  it.each([
    ['2026-11-21T07:08:00.123456Z_1234', true],
    ['2026-11-21T07:08:00.123456Z_e1234', true],
    ['1970-01-01T00:00:00.000000Z_n1', true],
    ['2026-11-21T07:08:00.123456Z_x1', false],
    ['2026-13-21T07:08:00.123456Z_1', false],
    ['2026-11-21T07:08:60.123456Z_1', false],
    ['1969-12-31T23:59:59.999999Z_1', false],
    ['2026-11-21T07:08:00.123456Z_', false],
  ])('%s: %s in RE2 and ECMAScript, as the stream or the change feed reads it', (id, taken) => {
    expect([re2.matcher(id).find(), ecma.test(id)]).toEqual([taken, taken]);
    expect(EVENT_ID.test(id) || CHANGE_ID.test(id)).toBe(taken);
  });

  it('parses what it takes', () => {
    expect(parseEventId('2026-11-21T07:08:00.123456Z_1234')).toEqual({ ts: '2026-11-21T07:08:00.123456Z', id: '1234' });
    expect(parseEventId('2026-02-30T07:08:00.123456Z_1234')).toBeNull();
  });
});
