import { STDERR_SUMMARY_MAX, stderrSummary } from './stderr-summary.js';

describe('the stderr summary kept in scans.error', () => {
  it.each([
    ['keeps the last non-empty line', 'starting\nrate limited by the API\n\n  \n', 'rate limited by the API'],
    [
      'removes colours and window titles',
      '\x1b[1;31mFATAL\x1b[0m no route \x1b]0;owned\x07done',
      'FATAL no route done',
    ],
    ['turns other controls into spaces', 'bell\x07and\ttab\x00nul\x9bcsi\u202eflip', 'bell and tab nul csi flip'],
    ['ends a line at a carriage return', 'progress 10%\rprogress 100%\rfailed: quota', 'failed: quota'],
    [
      'masks the user info of a URL',
      'cannot connect to postgres://monitor:s3cr3t@db.internal:5432/monitor',
      'cannot connect to postgres://***@db.internal:5432/monitor',
    ],
    [
      'masks a password holding a raw @',
      'dial redis://:p@ss@cache:6379/0 failed',
      'dial redis://***@cache:6379/0 failed',
    ],
    [
      'keeps a URL without user info',
      'GET https://api.example.com/v1?q=a@b.com: 429',
      'GET https://api.example.com/v1?q=a@b.com: 429',
    ],
    [
      'masks password=, token=, api_key: values',
      'bad request token=abc123&x=1, api_key: zzz',
      'bad request token=***&x=1, api_key: ***',
    ],
    ['gives nothing for nothing', '', ''],
  ])('%s', (_what, stderr, summary) => {
    expect(stderrSummary(stderr)).toBe(summary);
  });

  it('cuts a long line after masking, so a cut never leaves part of a password', () => {
    const summary = stderrSummary(`${'x'.repeat(180)} postgres://user:${'p'.repeat(50)}@host/db`);
    expect(summary).toHaveLength(STDERR_SUMMARY_MAX);
    expect(summary).toBe(`${'x'.repeat(180)} postgres://***@hos…`);
    expect(summary).not.toContain('ppp');
  });
});
