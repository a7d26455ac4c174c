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
