// A loopback RFC 6962 log for bench/ct-follow.mjs, in its own process (on the same two cores as the service):
// get-sth and get-entries (at most 1,000 entries per answer, as the largest public logs serve) over leaves made at
// start with the realistic mix of ct-leaves.mjs (CT_BENCH_MATCHING: the share of entries under tracked roots). It
// prints its URL; an IPC message { append: n } appends n more leaves, each naming one new host of a tracked root
// (for the latency figure), and answers { appended: size };
// { grow: rate } makes the log grow by `rate` entries a second from then on (for the memory figure).
import { createServer } from 'node:http';
import { makeLeaves, matchingLeaf } from './ct-leaves.mjs';

const leaves = makeLeaves(
  Number(process.env.CT_BENCH_ENTRIES),
  Number(process.env.CT_BENCH_ROOTS),
  Number(process.env.CT_BENCH_MATCHING ?? 0.01),
).map((l) => l.toString('base64'));
const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://log');
  const json = (status, body) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (url.pathname === '/log/ct/v1/get-sth') return json(200, { tree_size: leaves.length, timestamp: Date.now() });
  if (url.pathname !== '/log/ct/v1/get-entries') return json(404, {});
  const start = Number(url.searchParams.get('start'));
  const end = Math.min(Number(url.searchParams.get('end')), leaves.length - 1, start + 999);
  if (!(start >= 0 && end >= start)) return json(400, { error: 'bad range' });
  json(200, { entries: leaves.slice(start, end + 1).map((leaf_input) => ({ leaf_input, extra_data: '' })) });
});
// A pool the log grows from at a steady rate ({ grow: entries per second }), as the public logs do.
let pool = null;
process.on('message', (m) => {
  if (m.grow) {
    pool ??= makeLeaves(100_000, Number(process.env.CT_BENCH_ROOTS)).map((l) => l.toString('base64'));
    let next = 0;
    setInterval(() => {
      for (let i = 0; i < m.grow / 10; i++) leaves.push(pool[next++ % pool.length]);
    }, 100);
    return;
  }
  for (let i = 0; i < m.append; i++) leaves.push(matchingLeaf(m.host).toString('base64'));
  process.send({ appended: leaves.length });
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}/log`));
