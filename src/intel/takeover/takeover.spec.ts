import { TAKEOVER_FINGERPRINTS, readFingerprint } from './takeover-fingerprints.js';
import { takeoverByBody, takeoverByDns } from './takeover.js';

const dangling = (cname: string[]) => ({ status: 'nxdomain' as const, a: [], aaaa: [], cname });

describe('takeoverByDns', () => {
  it('flags an alias that dangles onto a service whose evidence is NXDOMAIN', () => {
    expect(takeoverByDns(dangling(['shop-prod.azurewebsites.net']))).toEqual({
      service: 'Microsoft Azure',
      status: 'Vulnerable',
      evidence: 'NXDOMAIN',
      vulnerable: true,
    });
    // Anywhere in the chain, and the suffix itself.
    expect(takeoverByDns(dangling(['edge.example.net', 'app.elasticbeanstalk.com']))?.service).toBe(
      'AWS/Elastic Beanstalk',
    );
  });

  it('shows a service the list calls not vulnerable, marked so', () => {
    expect(takeoverByDns(dangling(['x.eu-west-1.elb.amazonaws.com']))).toMatchObject({
      service: 'AWS/Load Balancer (ELB)',
      vulnerable: false,
    });
  });

  it('flags nothing that resolves, has no alias, or only shares a suffix', () => {
    expect(takeoverByDns({ ...dangling(['a.azurewebsites.net']), status: 'resolved', a: ['192.0.2.1'] })).toBeNull();
    expect(takeoverByDns(dangling([]))).toBeNull();
    expect(takeoverByDns(dangling(['evilazurewebsites.net']))).toBeNull();
    expect(takeoverByDns(dangling(['azurewebsites.net.attacker.test']))).toBeNull();
    // A service whose evidence is its error page needs the HTTP probe.
    expect(takeoverByDns(dangling(['bucket.s3.amazonaws.com']))).toBeNull();
  });
});

describe('takeoverByBody', () => {
  it('flags a page that shows the error text of the service the alias points at', () => {
    const page = '<html><body><h1>NoSuchBucket</h1><p>The specified bucket does not exist</p></body></html>';
    expect(takeoverByBody(['assets.s3.amazonaws.com'], page)).toEqual({
      service: 'AWS/S3',
      status: 'Vulnerable',
      evidence: 'The specified bucket does not exist',
      vulnerable: true,
    });
  });

  it('flags nothing without an alias to that service, or without its text', () => {
    const page = '<p>The specified bucket does not exist</p>';
    expect(takeoverByBody([], page)).toBeNull();
    expect(takeoverByBody(['www.example.net'], page)).toBeNull();
    expect(takeoverByBody(['assets.s3.amazonaws.com'], '<p>Welcome</p>')).toBeNull();
  });
});

// Error pages as the services serve them for a name nobody claims, with the markup around the text.
const WORDPRESS_UNCLAIMED = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>acme-news.wordpress.com doesn&#8217;t&nbsp;exist</title></head>
<body class="error404">
  <h1><em>acme-news.wordpress.com</em> doesn&#8217;t&nbsp;exist</h1>
  <p>Do you want to register <a href="https://wordpress.com/start?ref=wpcom-404"><em>acme-news.wordpress.com</em></a>?</p>
</body></html>`;
const WORDPRESS_LIVE = `<!DOCTYPE html><html lang="en"><head><title>Acme News &#8211; Stories from Acme</title>
<meta name="generator" content="WordPress.com"></head><body><article><h2>Hello world!</h2></article>
<footer><a href="https://wordpress.com/?ref=footer_blog">Blog at WordPress.com.</a></footer></body></html>`;
const WORDPRESS_RESERVED = `<html><body><h1><em>support.wordpress.com</em> is no longer available.</h1>
<p>This address cannot be registered.</p></body></html>`;
const NGROK_UNCLAIMED = `<!DOCTYPE html><html><head><title>ngrok - 3f2a9c1d.ngrok.io</title></head><body>
<div class="container"><h2>Tunnel 3f2a9c1d.ngrok.io not found</h2><p><strong>ERR_NGROK_3200</strong></p></div>
</body></html>`;
const NGROK_LIVE =
  '<!DOCTYPE html><html><head><title>Dev server</title></head><body>Tunnel up: 3f2a9c1d.ngrok.io</body></html>';
const GHOST_UNRESOLVED = '<html><body>Failed to resolve DNS path for this host</body></html>';
const GHOST_UNAVAILABLE = `<!doctype html><html><head><title>Site unavailable</title></head>
<body><h1>Site unavailable.</h1><p>This publication is no longer online.</p></body></html>`;
const GHOST_LIVE = `<!DOCTYPE html><html><head><meta name="generator" content="Ghost 5.82"><title>Acme Blog</title></head>
<body><p>Site unavailable for an hour on Sunday for maintenance, sorry.</p></body></html>`;

describe('fingerprints written as patterns', () => {
  it('reads as patterns exactly the entries written so, and every other entry as its text', () => {
    const patterns = TAKEOVER_FINGERPRINTS.filter((f) => f.pattern !== null).map((f) => [f.service, f.pattern]);
    expect(patterns).toEqual([
      ['Ghost', 'Site unavailable\\.|Failed to resolve DNS path for this host'],
      ['Ngrok', 'Tunnel .*.ngrok.io not found'],
      ['Wordpress', 'Do you want to register .*.wordpress.com?'],
    ]);
    // Prose keeps its punctuation: a "?" or "." of a sentence is no pattern.
    const campaign = TAKEOVER_FINGERPRINTS.find((f) => f.service === 'Campaign Monitor');
    expect(campaign?.shownIn('<p>Trying to access your account?</p>')).toBe('Trying to access your account?');
    expect(campaign?.shownIn('<p>Trying to access your accoun</p>')).toBeNull();
  });

  it('flags an unclaimed WordPress.com site, and neither a live blog nor a reserved name', () => {
    expect(takeoverByBody(['acme-news.wordpress.com'], WORDPRESS_UNCLAIMED)).toEqual({
      service: 'Wordpress',
      status: 'Vulnerable',
      evidence:
        'Do you want to register <a href="https://wordpress.com/start?ref=wpcom-404"><em>acme-news.wordpress.com',
      vulnerable: true,
    });
    expect(takeoverByBody(['acme-news.wordpress.com'], WORDPRESS_LIVE)).toBeNull();
    expect(takeoverByBody(['support.wordpress.com'], WORDPRESS_RESERVED)).toBeNull();
    // The same page behind an alias to another service is not WordPress's.
    expect(takeoverByBody(['acme.herokuapp.com'], WORDPRESS_UNCLAIMED)).toBeNull();
  });

  it('flags a tunnel ngrok no longer serves, and not a live one', () => {
    expect(takeoverByBody(['3f2a9c1d.ngrok.io'], NGROK_UNCLAIMED)).toMatchObject({
      service: 'Ngrok',
      evidence: 'Tunnel 3f2a9c1d.ngrok.io not found',
    });
    expect(takeoverByBody(['3f2a9c1d.ngrok.io'], NGROK_LIVE)).toBeNull();
    // `.` stops at a line's end, as in the list's own matcher.
    expect(takeoverByBody(['3f2a9c1d.ngrok.io'], 'Tunnel 3f2a9c1d\n.ngrok.io not found')).toBeNull();
  });

  it("flags either of Ghost's error texts (the list's &#124; is an alternation), and not a live publication", () => {
    expect(takeoverByBody(['acme.ghost.io'], GHOST_UNRESOLVED)).toEqual({
      service: 'Ghost',
      status: 'Vulnerable',
      evidence: 'Failed to resolve DNS path for this host',
      vulnerable: true,
    });
    expect(takeoverByBody(['acme.ghost.io'], GHOST_UNAVAILABLE)).toMatchObject({ evidence: 'Site unavailable.' });
    // "Site unavailable" without its full stop is a sentence of the blog, not the error page.
    expect(takeoverByBody(['acme.ghost.io'], GHOST_LIVE)).toBeNull();
  });

  it('takes a pattern re2js refuses as literal text', () => {
    const entry = { ...TAKEOVER_FINGERPRINTS[0], nxdomain: false, fingerprint: 'gone (?<=x)\\.*' };
    const read = readFingerprint(entry);
    expect(read.pattern).toBeNull();
    expect(read.shownIn('<p>gone (?<=x)\\.*</p>')).toBe('gone (?<=x)\\.*');
    expect(read.shownIn('<p>gone x</p>')).toBeNull();
  });

  // A backtracking engine retries `.*` from every start: 4 MiB of these take minutes there (about ten for
  // WordPress's pattern on Node 20), and milliseconds on re2js.
  it.each([
    ['Wordpress', 'Do you want to register '],
    ['Ngrok', 'Tunnel x.ngrok.io not '],
    ['Ghost', 'Site unavailable Failed to resolve DNS path for this '],
  ])('stays linear on 4 MiB of near misses for %s', (service, near) => {
    const fingerprint = TAKEOVER_FINGERPRINTS.find((f) => f.service === service)!;
    const body = near.repeat(Math.ceil((4 << 20) / near.length));
    const start = process.hrtime.bigint();
    expect(fingerprint.shownIn(body)).toBeNull();
    expect(Number(process.hrtime.bigint() - start) / 1e6).toBeLessThan(2000);
  });

  it('reads an entry whose evidence is a status alone as no text of a page', () => {
    const statusOnly = TAKEOVER_FINGERPRINTS.filter((f) => /^HTTP_STATUS=/.test(f.fingerprint));
    expect(statusOnly.map((f) => [f.service, f.http_status])).toEqual([
      ['Helprace', 301],
      ['LaunchRock', 500],
    ]);
    for (const f of statusOnly) expect(f.shownIn(`<p>${f.fingerprint}</p>`)).toBeNull();
    expect(takeoverByBody(['acme.helprace.com'], '<p>HTTP_STATUS=301</p>')).toBeNull();
  });

  it('looks at the first 64 KiB of a body only, as much as the probe reads', () => {
    const late = `${' '.repeat(64 * 1024)}Failed to resolve DNS path for this host`;
    expect(takeoverByBody(['acme.ghost.io'], late)).toBeNull();
    expect(takeoverByBody(['acme.ghost.io'], late.slice(100))).toMatchObject({ service: 'Ghost' });
  });
});
