/**
 * `npm run wallet -- <command>`: a local wallet for the devnet of `npm start` (devnet/localWallet.ts).
 *
 *   new [--chain base] [--native 10] [--tokens 1000000]
 *       a fresh key under DATA_DIR/wallets, funded with native coin and each test token; prints its address
 *   send <file | -> [--key <api key>] [--api http://127.0.0.1:8080]
 *       signs and sends a saved prepared answer step by step, printing each transaction hash, then the
 *       position's status as the service sees it (with an API key: --key or API_KEY)
 *   list
 *       the wallets kept under DATA_DIR/wallets
 *
 * Exits 1 with one line on stderr when anything is refused or fails.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  chainOf,
  createWallet,
  devnetChains,
  listWallets,
  type PreparedAnswer,
  preparedAnswerOf,
  sendPrepared,
  WalletError,
} from '../devnet/localWallet.js';

const USAGE = `usage: npm run wallet -- new [--chain base] [--native 10] [--tokens 1000000]
       npm run wallet -- send <file | -> [--key <api key>] [--api <url>]
       npm run wallet -- list`;

const dataDir = process.env.DATA_DIR ?? './.data';

/** The state a position reaches once the service has seen the last step; null: nothing to wait for. */
function awaited(answer: PreparedAnswer): readonly string[] | null {
  const last = answer.transactions.at(-1)?.purpose;
  if (last === 'ship') return ['shipped', 'filled'];
  if (last === 'swap') return ['filled'];
  if (last === 'dock') return ['docked'];
  return null;
}

interface Status {
  status: string;
  health?: { status: string } | null;
}

async function statusOf(api: string, key: string, id: string): Promise<Status | null> {
  const res = await fetch(`${api}/v1/positions/${id}`, { headers: { authorization: `Bearer ${key}` } });
  if (res.status === 404) return null;
  if (!res.ok) throw new WalletError(`GET /v1/positions/${id} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: Status }).data;
}

/** Polls the position until the service has indexed what was sent (at most `deadlineMs`). */
async function reportStatus(api: string, key: string, id: string, answer: PreparedAnswer) {
  const want = awaited(answer);
  const deadline = Date.now() + 30_000;
  let status = await statusOf(api, key, id);
  while (status && want && !want.includes(status.status) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    status = await statusOf(api, key, id);
  }
  if (!status) {
    console.log(`position ${id}: not one of this key's positions`);
    return;
  }
  const health = status.health ? `, health ${status.health.status}` : '';
  console.log(`position ${id}: ${status.status}${health}`);
  if (want && !want.includes(status.status))
    console.log(`  (the indexer has not seen it yet: GET /v1/positions/${id} again in a moment)`);
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      chain: { type: 'string', default: 'base' },
      native: { type: 'string', default: '10' },
      tokens: { type: 'string', default: '1000000' },
      key: { type: 'string' },
      api: { type: 'string' },
    },
  });
  const [command, file] = positionals;
  if (command === 'new') {
    if (!/^[0-9]+(\.[0-9]+)?$/.test(values.native) || !/^[0-9]+(\.[0-9]+)?$/.test(values.tokens))
      throw new WalletError('--native and --tokens take a decimal number of whole units');
    const chain = chainOf(devnetChains(dataDir), values.chain);
    const created = await createWallet(dataDir, chain, { native: values.native, tokens: values.tokens });
    console.log(created.address);
    console.error(`chain ${chain.key} (${chain.chainId}), key kept in ${created.keyFile}`);
    for (const f of created.funded) console.error(`  funded ${f.amount} ${f.symbol} (base units)`);
    return;
  }
  if (command === 'send') {
    if (!file) throw new WalletError(`send needs a saved answer (a file, or - for stdin)\n${USAGE}`);
    let text: string;
    try {
      text = readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch {
      throw new WalletError(`cannot read ${file}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new WalletError(`${file} is not JSON`);
    }
    const answer = preparedAnswerOf(body);
    if (answer.transactions.length === 0) console.log('nothing to send: the answer has no transactions');
    await sendPrepared(dataDir, devnetChains(dataDir), answer, (s) =>
      console.log(`step ${s.step} ${s.purpose}: ${s.hash} (block ${s.block}, gas ${s.gasUsed})`),
    );
    const key = values.key ?? process.env.API_KEY;
    const data = answer as PreparedAnswer & { positionId?: string; strategyHash?: string };
    const id = data.positionId ?? data.strategyHash;
    if (key && id) {
      const api = (values.api ?? `http://127.0.0.1:${process.env.PORT ?? 8080}`).replace(/\/+$/, '');
      await reportStatus(api, key, id, answer);
    }
    return;
  }
  if (command === 'list') {
    for (const address of listWallets(dataDir)) console.log(address);
    return;
  }
  throw new WalletError(USAGE);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const message = err instanceof WalletError || err instanceof TypeError ? err.message : String(err);
  console.error(`wallet: ${message}`);
  process.exit(1);
});
