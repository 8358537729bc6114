/**
 * `npm run webhook-receiver -- [--port 8099] [--secret whsec_…]`: a local endpoint for the webhooks of
 * the devnet (the default mode accepts http URLs on this machine). Prints one line per delivery: its
 * event, the position and its status; with the endpoint's secret, only deliveries whose Standard Webhooks
 * signature verifies, and a refusal (401) for the others.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '8099' }, secret: { type: 'string' } },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error('webhook-receiver: --port takes a port number');
  process.exit(1);
}
const verifier = values.secret ? new Webhook(values.secret) : null;

interface Payload {
  type: string;
  timestamp: string;
  data: { positionId?: string; status?: string; health?: { status: string } | null };
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let payload: Payload;
    try {
      if (verifier) {
        const headers: Record<string, string> = {};
        for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'])
          headers[name] = String(req.headers[name] ?? '');
        payload = verifier.verify(body, headers) as Payload;
      } else payload = JSON.parse(body) as Payload;
    } catch {
      console.log(`refused a delivery that does not verify (${req.headers['webhook-id'] ?? 'no id'})`);
      res.writeHead(401).end();
      return;
    }
    const health = payload.data.health ? `, health ${payload.data.health.status}` : '';
    console.log(
      `${payload.timestamp} ${payload.type} ${payload.data.positionId ?? '?'}: ${payload.data.status ?? '?'}${health}`,
    );
    res.writeHead(204).end();
  });
});

server.listen(port, '127.0.0.1', () => {
  console.log(
    `listening on http://127.0.0.1:${port}/ (${verifier ? 'verifying signatures' : 'not verifying'})`,
  );
});
