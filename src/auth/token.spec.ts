import { generateToken, hashToken, isWellFormedToken, tokenHint } from './token.js';

describe('API key tokens', () => {
  it('look like sm_live_ and 40 base62 characters', () => {
    const token = generateToken();
    expect(token).toMatch(/^sm_live_[A-Za-z0-9]{40}$/);
    expect(isWellFormedToken(token)).toBe(true);
  });

  it('are different every time and use the whole alphabet', () => {
    const tokens = Array.from({ length: 500 }, generateToken);
    expect(new Set(tokens).size).toBe(500);
    const chars = new Set(tokens.join('').replaceAll('sm_live_', ''));
    expect(chars.size).toBe(62);
  });

  it.each([
    '',
    'sm_live_',
    'sm_live_short',
    `sm_test_${'a'.repeat(40)}`,
    `sm_live_${'a'.repeat(39)}!`,
    ` sm_live_${'a'.repeat(40)}`,
  ])('rejects %j as malformed', (token) => expect(isWellFormedToken(token)).toBe(false));

  it('hashes with SHA-256 as hex', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hints show the prefix and four characters, never the key', () => {
    const token = generateToken();
    expect(tokenHint(token)).toBe(`${token.slice(0, 12)}…`);
  });
});
