import { AppError } from '../common/errors/app-error.js';
import { decodePlatformCursor, encodePlatformCursor } from './platform-cursor.js';

describe('platform feed cursor', () => {
  it('round-trips a position, whatever characters the host has', () => {
    for (const position of [
      { domain: 'example.com', host: 'a.example.com' },
      { domain: 'xn--bcher-kva.de', host: 'ß.xn--bcher-kva.de' },
      { domain: 'e.com', host: '' },
    ]) {
      expect(decodePlatformCursor(encodePlatformCursor(position))).toEqual(position);
    }
  });

  it('is opaque: url-safe characters only', () => {
    expect(encodePlatformCursor({ domain: 'example.com', host: 'x/y+z.example.com' })).toMatch(/^[A-Za-z0-9_.-]+$/);
  });

  it.each(['', 'abc', 'c1..', 'c2.e30.AAAAAAAAAAAA', 'c1.e30.AAAAAAAAAAAA.x'])(
    'rejects %j with invalid_query',
    (cursor) => {
      expect(() => decodePlatformCursor(cursor)).toThrow(AppError);
    },
  );

  it('rejects a cursor whose payload was edited', () => {
    const cursor = encodePlatformCursor({ domain: 'example.com', host: 'a.example.com' });
    const [v, , sum] = cursor.split('.');
    const forged = `${v}.${Buffer.from(JSON.stringify(['example.com', 'z.example.com'])).toString('base64url')}.${sum}`;
    expect(() => decodePlatformCursor(forged)).toThrow(expect.objectContaining({ code: 'invalid_query' }));
  });
});
