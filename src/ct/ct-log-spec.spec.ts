import { parseLogList } from './ct-log-spec.js';

const list = (...urls: string[]) =>
  JSON.stringify({ operators: [{ logs: urls.map((url) => ({ url, state: { usable: {} } })) }] });

describe('parseLogList', () => {
  it('takes usable http(s) logs and passes over entries that are no URL', () => {
    expect(parseLogList(list('https://ct.example/log/', 'ftp://ct.example/', 'https:// space/', 'https:///x'))).toEqual(
      [{ url: 'https://ct.example/log', kind: 'rfc6962' }],
    );
  });

  it('passes over a hostile URL in linear time: a megabyte of one label, then a space', () => {
    // The former pattern (two repeats over the same characters) took minutes on this; the check is now linear.
    const started = process.hrtime.bigint();
    expect(parseLogList(list(`https://${'a'.repeat(1 << 20)} `, `https://${'a'.repeat(2000)} `))).toEqual([]);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(2000);
  });
});
