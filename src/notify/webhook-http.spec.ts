import { AppError } from '../common/errors/app-error.js';
import { targetProblem } from './webhook-http.js';

const failing = (code: string) => () => Promise.reject(Object.assign(new Error(`getaddrinfo ${code}`), { code }));
const answering = (address: string) => () => Promise.resolve([{ address }]);
const url = new URL('https://hooks.example.com/in');

describe('targetProblem', () => {
  it('refuses a name that does not exist, as the URL is wrong', async () => {
    for (const code of ['ENOTFOUND', 'ENODATA']) {
      await expect(targetProblem(url, false, failing(code))).resolves.toBe(
        `hooks.example.com does not resolve (${code})`,
      );
    }
  });

  it('answers 503 with Retry-After when the name cannot be looked up right now', async () => {
    for (const code of ['EAI_AGAIN', 'ETIMEOUT', 'EAI_FAIL', 'ECONNREFUSED']) {
      const refused = await targetProblem(url, false, failing(code)).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({
        code: 'service_unavailable',
        message: `hooks.example.com cannot be looked up right now (${code}); retry shortly`,
        details: { retryAfterSeconds: 10 },
      });
    }
  });

  it('names the kind of a special-use address with the article it takes', async () => {
    await expect(targetProblem(url, false, answering('::ffff:127.0.0.1'))).resolves.toMatch(/, a loopback address/);
    await expect(targetProblem(url, false, answering('64:ff9b::a00:1'))).resolves.toMatch(/, an IPv4-embedded/);
    await expect(targetProblem(url, false, answering('10.0.0.1'))).resolves.toMatch(/, a private address/);
    await expect(targetProblem(url, false, answering('0.0.0.0'))).resolves.toMatch(/, an unspecified address/);
  });

  it('accepts a public address, and looks nothing up when private addresses are allowed', async () => {
    await expect(targetProblem(url, false, answering('93.184.215.14'))).resolves.toBeNull();
    await expect(targetProblem(url, true, failing('EAI_AGAIN'))).resolves.toBeNull();
  });
});
