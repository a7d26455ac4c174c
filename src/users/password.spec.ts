import { DECOY_HASH, hashPassword, passwordProblem, verifyPassword } from './password.js';

describe('passwords', () => {
  it('hashes with scrypt and a fresh salt, and verifies only the same password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(a).not.toContain('horse');
  });

  it('matches nothing against the decoy or a malformed hash', async () => {
    expect(await verifyPassword('anything at all', DECOY_HASH)).toBe(false);
    expect(await verifyPassword('anything at all', 'md5$abc')).toBe(false);
  });

  it('asks for 10 to 200 characters', () => {
    expect(passwordProblem('short')).toMatch(/at least 10/);
    expect(passwordProblem('x'.repeat(201))).toMatch(/at most 200/);
    expect(passwordProblem('long enough pass')).toBeNull();
  });
});
