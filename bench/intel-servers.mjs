// The loopback servers of bench/intel.mjs, each in its own process: `dns` answers every name with one A record
// (dns2, as the tests' server), `https` serves a small page with a title over TLS (a self-signed certificate).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dns2 from 'dns2';

const role = process.argv[2];
if (role === 'dns') {
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      if (question.type === Packet.TYPE.A) {
        response.answers.push({
          name: question.name,
          type: Packet.TYPE.A,
          class: Packet.CLASS.IN,
          ttl: 60,
          address: '203.0.113.7',
        });
      }
      send(response);
    },
  });
  const info = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  process.send(info.udp.port);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'sm-bench-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '30',
      '-subj',
      '/CN=bench.test',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const page =
    '<html><head><title>Welcome to the example portal</title></head><body>' + 'x'.repeat(2000) + '</body></html>';
  const server = createServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', server: 'nginx' });
      res.end(page);
    },
  );
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
}
