/**
 * Baselines serving fixed bytes on a port, to any method and path, in a process of their own:
 *   node --import tsx bench/servers/hello.ts express|http <port> <bodyFile>
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import express from 'express';

const [kind, portText, bodyFile] = process.argv.slice(2);
const body = readFileSync(bodyFile!, 'utf8');
const port = Number(portText);

if (kind === 'express') {
  // The express 5 hello-world: defaults untouched; one route for every method and path, so the same
  // requests as the gateway's (a query string, a POST body) get the same bytes.
  const app = express();
  app.all('/{*path}', (_req, res) => {
    res.type('application/json').send(body);
  });
  app.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
} else {
  createServer((_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  }).listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
}
