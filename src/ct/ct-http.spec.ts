import { retryAfterMs } from './ct-http.js';

describe('Retry-After of a busy log', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it.each([
    ['3', 0, 3000],
    [' 0 ', 0, 0],
    ['Thu, 01 Jan 2026 00:00:05 GMT', 0, 5000],
    ['Wed, 31 Dec 2025 23:59:00 GMT', 0, 0], // a date gone by: at once
    ['86400', 0, 60_000], // capped at a minute
    ['soon', 0, 1000], // unreadable: the back-off
    [null, 0, 1000],
    [null, 2, 5000],
    [null, 40, 60_000],
  ])('waits for %j (busy answer %i) %i ms', (header, attempt, ms) => {
    expect(retryAfterMs(header, attempt, now)).toBe(ms);
  });
});
