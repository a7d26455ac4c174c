// The endpoints api.mjs and cpu.mjs measure, each with its rotation of paths, taken from the data itself: different
// domains and platforms, search terms that hit and miss, cursors from real pages, deep offsets.
import { benchDomains } from './harness.mjs';

/** Every JSON read endpoint, `{ name, paths }`, its paths read from the service at `url` with the key `token`. */
export async function endpointsOf(url, token) {
  const get = async (path) => (await fetch(`${url}/api/v1${path}`, { headers: { 'x-api-key': token } })).json();
  const domains = await benchDomains(url, token);
  const labels = [...new Set((await get('/subdomains/new?limit=200')).data.map((h) => h.host.split(/[.-]/)[0]))];
  const terms = [
    ...labels.slice(0, 6),
    'zzqx-none',
    'no-such-label-9',
    ...domains.slice(0, 2).map((d) => d.split('.')[0]),
  ];

  async function walk(first, next, pages) {
    const paths = [first];
    for (let page = await get(first); paths.length < pages;) {
      const path = next(page);
      if (!path) break;
      paths.push(path);
      page = await get(path);
    }
    return paths.map((p) => `/api/v1${p}`);
  }
  const feedCursors = await walk(
    '/subdomains/new?limit=500',
    (page) => {
      const c = page.meta.next_cursor;
      return c && `/subdomains/new?limit=500&before_ts=${encodeURIComponent(c.before_ts)}&before_id=${c.before_id}`;
    },
    30,
  );
  const platformCursors = [];
  for (const slug of ['hackerone', 'bugcrowd', 'intigriti', 'yeswehack']) {
    platformCursors.push(
      ...(await walk(
        `/platforms/${slug}/subdomains?limit=1000`,
        (page) => page.meta.next_cursor && `/platforms/${slug}/subdomains?limit=1000&cursor=${page.meta.next_cursor}`,
        8,
      )),
    );
  }
  const scanIds = (await get('/scans?limit=20')).data.map((s) => s.id);
  const v1 = (paths) => paths.map((p) => `/api/v1${p}`);
  const SLUGS = ['hackerone', 'bugcrowd', 'intigriti', 'yeswehack', 'self'];

  return [
    { name: 'GET /', paths: ['/api/v1/'] },
    { name: 'GET /me', paths: v1(['/me']) },
    {
      name: 'GET /domains',
      paths: v1([
        '/domains',
        '/domains?limit=1000',
        '/domains?offset=1500&limit=100',
        '/domains?platform=bugcrowd&sort=total_subdomains',
        '/domains?search=cloud&limit=100',
        '/domains?sort=last_scanned_at&offset=500',
      ]),
    },
    { name: 'GET /domains/{domain}', paths: v1(domains.map((d) => `/domains/${d}`)) },
    {
      name: 'GET /domains/{domain}/subdomains',
      paths: v1(
        domains.flatMap((d) => [
          `/domains/${d}/subdomains`,
          `/domains/${d}/subdomains?limit=1000`,
          `/domains/${d}/subdomains?offset=400&limit=100`,
          `/domains/${d}/subdomains?filter=inactive`,
          `/domains/${d}/subdomains?search=${terms[0]}`,
        ]),
      ),
    },
    {
      name: 'GET /domains/{domain}/subdomains/new',
      paths: v1(
        domains.flatMap((d) => [`/domains/${d}/subdomains/new`, `/domains/${d}/subdomains/new?hours=720&limit=2000`]),
      ),
    },
    { name: 'GET /subdomains/new (limit 500, cursors)', paths: feedCursors },
    {
      name: 'GET /subdomains/search',
      paths: v1(terms.flatMap((q) => [`/subdomains/search?q=${q}`, `/subdomains/search?q=${q}&offset=300&limit=100`])),
    },
    { name: 'GET /platforms', paths: v1(['/platforms']) },
    { name: 'GET /platforms/{slug}', paths: v1(SLUGS.map((s) => `/platforms/${s}`)) },
    {
      name: 'GET /platforms/{slug}/domains',
      paths: v1(SLUGS.flatMap((s) => [`/platforms/${s}/domains`, `/platforms/${s}/domains?offset=300&limit=1000`])),
    },
    { name: 'GET /platforms/{slug}/subdomains (limit 1000, cursors)', paths: platformCursors },
    {
      name: 'GET /platforms/{slug}/subdomains/new',
      paths: v1(
        SLUGS.flatMap((s) => [`/platforms/${s}/subdomains/new`, `/platforms/${s}/subdomains/new?hours=168&limit=2000`]),
      ),
    },
    {
      name: 'GET /scans',
      paths: v1([
        '/scans',
        '/scans?limit=500',
        '/scans?platform=intigriti',
        `/scans?domain=${domains[0]}`,
        '/scans?status=error',
      ]),
    },
    { name: 'GET /scans/{id}', paths: v1(scanIds.map((id) => `/scans/${id}`)) },
    { name: 'GET /scans/status', paths: v1(['/scans/status']) },
    { name: 'GET /stats', paths: v1(['/stats']) },
    {
      name: 'GET /stats/timeseries',
      paths: v1(['/stats/timeseries', '/stats/timeseries?hours=168', '/stats/timeseries?bucket=day&hours=720']),
    },
    {
      name: 'GET /stats/top-domains',
      paths: v1(['/stats/top-domains', '/stats/top-domains?hours=168&limit=200', '/stats/top-domains?hours=720']),
    },
  ];
}
