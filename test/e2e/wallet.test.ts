/**
 * The newcomer's lifecycle with the local wallet, as the README's quick start runs it: `npm run wallet`
 * creates and funds a fresh account on the devnet, signs and sends the saved answers of POST
 * /v1/positions, /v1/swaps, …/approvals and …/dock, and reports the position as the service's own indexer
 * sees it (shipped, filled, docked); `npm run webhook-receiver` prints the verified deliveries. Both are
 * run as the processes a user starts. The wallet refuses a chain that is not the local anvil.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Address, createPublicClient, getAddress, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi } from '../../chain/abi.js';
import { type Devnet, manifestPathOf } from '../../devnet/devnet.js';
import type { ChainConfig } from '../../lib/chains.js';
import { startSeededDevnet } from '../helpers/devnetSnapshot.js';
import { testPort } from '../helpers/ports.js';
import { startTestService, type TestService } from '../helpers/service.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BASE_PORT = testPort(19980);
const RECEIVER_PORT = testPort(19984);

let dataDir: string;
let devnet: Devnet;
let base: ChainConfig;
let svc: TestService;
let key: string;
/** Stopped in afterAll too: a test that fails mid-way must not leave it holding its port. */
let receiver: ChildProcess | undefined;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runScript(script: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', script), ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    // A hang guard, not a bound: a stuck child fails its test with what it printed.
    const guard = setTimeout(() => child.kill('SIGKILL'), 100_000);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({
        code,
        stdout,
        stderr: code === null ? `killed after a hang; it printed:\n${stdout}\n${stderr}` : stderr,
      });
    });
  });
}

const wallet = (...args: string[]) => runScript('wallet.ts', args);

async function post(url: string, body?: unknown): Promise<{ data: Record<string, unknown> }> {
  const res = await svc.get(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text);
}

/** Saves an answer as the README has the user save it (`curl … > file`). */
function saved(name: string, body: unknown): string {
  const file = path.join(dataDir, name);
  writeFileSync(file, JSON.stringify(body));
  return file;
}

async function newWallet(): Promise<Address> {
  const run = await wallet('new', '--chain', 'base', '--native', '5', '--tokens', '50000');
  expect(run.code, run.stderr).toBe(0);
  return getAddress(run.stdout.trim());
}

let first: Promise<Address> | undefined;
/**
 * The first wallet made (by the first test, whose subject it is), also the taker of the lifecycle and
 * the maker of the refusals: another `wallet new` is another process to start for each.
 */
const firstWallet = (): Promise<Address> => {
  first ??= newWallet();
  return first;
};

/** A child process's stdout lines as they come; a wait fails at once when the child has exited. */
function lines(child: ChildProcess) {
  const seen: string[] = [];
  const waiters = new Set<() => void>();
  let rest = '';
  let stderr = '';
  let exited = false;
  child.stdout?.on('data', (c: Buffer) => {
    const parts = (rest + c.toString()).split('\n');
    rest = parts.pop() ?? '';
    seen.push(...parts);
    for (const wake of waiters) wake();
  });
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  child.on('exit', () => {
    exited = true;
    for (const wake of waiters) wake();
  });
  return {
    seen,
    /** Resolves with the first line matching `re` (a generous deadline: a hang guard, not a bound). */
    waitFor(re: RegExp): Promise<string> {
      return new Promise((resolve, reject) => {
        const fail = (why: string) => {
          clearTimeout(timer);
          waiters.delete(check);
          reject(new Error(`${why}: no line like ${re} in:\n${seen.join('\n')}\n${stderr}`));
        };
        const timer = setTimeout(() => fail('no such line yet'), 60_000);
        const check = () => {
          const line = seen.find((l) => re.test(l));
          if (line !== undefined) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(line);
          } else if (exited) fail('the process exited');
        };
        waiters.add(check);
        check();
      });
    },
  };
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-e2e-'));
  devnet = await startSeededDevnet({ basePort: BASE_PORT, dataDir, activityMs: 0 });
  base = devnet.chains.find((c) => c.key === 'base')!;
  svc = await startTestService({
    chains: devnet.chains,
    // The default mode's webhook rules: http endpoints on this machine are allowed. A send waits until
    // the indexer has seen it: polling the chains every 200 ms, not every second, shortens each wait.
    env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', INDEXER_POLL_MS: '200' },
  });
  key = (await svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000, label: 'newcomer' })).key;
});

afterAll(async () => {
  receiver?.kill();
  await svc?.stop();
  await devnet?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run wallet on the devnet', () => {
  it('creates a fresh account funded with the native coin and every test token of the chain', async () => {
    const address = await firstWallet();
    const reader = createPublicClient({ transport: http(base.rpcUrl) });
    expect(await reader.getBalance({ address })).toBe(5n * 10n ** 18n);
    for (const token of base.tokens)
      expect(
        await reader.readContract({
          address: token.address as Address,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [address],
        }),
      ).toBe(50_000n * 10n ** BigInt(token.decimals));
    // Its key is kept under DATA_DIR, readable by its owner only, and the wallet is listed.
    const keyFile = path.join(dataDir, 'wallets', `${address}.json`);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const list = await wallet('list');
    expect(list.stdout.trim().split('\n')).toContain(address);
  });

  it('walks a position from prepared to shipped, filled and docked, a verified webhook for each', async () => {
    const hook = await post('/v1/webhooks', {
      url: `http://127.0.0.1:${RECEIVER_PORT}/hook`,
      events: ['position.shipped', 'position.filled', 'position.docked'],
    });
    receiver = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(ROOT, 'scripts/webhook-receiver.ts'),
        '--port',
        String(RECEIVER_PORT),
        '--secret',
        String(hook.data.secret),
      ],
      { cwd: ROOT },
    );
    const received = lines(receiver);
    try {
      // Each run is a process of its own, started in about a second: what does not wait on another runs
      // beside it.
      const [maker, taker] = await Promise.all([
        newWallet(),
        firstWallet(),
        received.waitFor(/^listening on /),
      ]);
      const opened = await post('/v1/positions', {
        chain: 'base',
        wallet: maker,
        deposits: [
          { symbol: 'USDC', amount: '10000000000' },
          { symbol: 'USDT', amount: '10000000000' },
        ],
      });
      const id = String(opened.data.strategyHash);
      const ship = await wallet('send', saved('open.json', opened), '--key', key, '--api', svc.url);
      expect(ship.code, ship.stderr).toBe(0);
      // Each step's hash printed, in order, then the position as the service has indexed it.
      expect(ship.stdout).toMatch(/^step 1 approve: 0x[0-9a-f]{64} /m);
      expect(ship.stdout).toMatch(/^step 3 ship: 0x[0-9a-f]{64} /m);
      expect(ship.stdout).toContain(`position ${id}: shipped, health ok`);
      await received.waitFor(new RegExp(`position\\.shipped ${id}: shipped`));

      const swap = await post('/v1/swaps', {
        chain: 'base',
        hash: id,
        wallet: taker,
        amount: '1000000',
        direction: 'aToB',
      });
      const swapped = await wallet('send', saved('swap.json', swap), '--key', key, '--api', svc.url);
      expect(swapped.code, swapped.stderr).toBe(0);
      expect(swapped.stdout).toMatch(/ swap: 0x[0-9a-f]{64} /);
      expect(swapped.stdout).toContain(`position ${id}: filled`);
      await received.waitFor(new RegExp(`position\\.filled ${id}: filled`));

      // The fill grew the position's virtual balance of the token paid in beyond the exact allowance
      // given at open: the top-up approves what is now needed, and the health is ok again.
      expect(swapped.stdout).not.toContain('health ok');
      const topUp = await post(`/v1/positions/${id}/approvals`);
      const sentTopUp = await wallet('send', saved('approvals.json', topUp), '--key', key, '--api', svc.url);
      expect(sentTopUp.code, sentTopUp.stderr).toBe(0);
      expect(sentTopUp.stdout).toMatch(/^step 1 approve: 0x[0-9a-f]{64} /m);
      expect(sentTopUp.stdout).toContain(`position ${id}: filled, health ok`);
      const again = await post(`/v1/positions/${id}/approvals`);
      // The answer with nothing in it is sent while the position is docked (it sends nothing on chain).
      const dock = await post(`/v1/positions/${id}/dock`);
      const [nothing, docked] = await Promise.all([
        wallet('send', saved('approvals-again.json', again)),
        wallet('send', saved('dock.json', dock), '--key', key, '--api', svc.url),
      ]);
      expect(nothing.code, nothing.stderr).toBe(0);
      expect(nothing.stdout).toContain('nothing to send');

      expect(docked.code, docked.stderr).toBe(0);
      expect(docked.stdout).toMatch(/^step 1 dock: 0x[0-9a-f]{64} /m);
      expect(docked.stdout).toContain(`position ${id}: docked`);
      await received.waitFor(new RegExp(`position\\.docked ${id}: docked`));
      // Every delivery verified with the endpoint's secret.
      expect(received.seen.filter((l) => /^refused/.test(l))).toEqual([]);
    } finally {
      receiver.kill();
      receiver = undefined;
    }
  });

  it("refuses an answer for another chain id, a wallet it holds no key for, and a chain that is not this machine's anvil", async () => {
    // The same manifest with base pointing elsewhere: a remote host, then this machine's gateway. Each
    // refusal is a process of its own: these two run beside the rest of the test.
    const manifest = JSON.parse(readFileSync(manifestPathOf(dataDir), 'utf8')) as { chains: ChainConfig[] };
    const newWalletOn = async (rpcUrl: string): Promise<Run> => {
      const elsewhere = mkdtempSync(path.join(tmpdir(), 'wallet-elsewhere-'));
      try {
        const chains = manifest.chains.map((c) => (c.key === 'base' ? { ...c, rpcUrl } : c));
        const file = manifestPathOf(elsewhere);
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, JSON.stringify({ chains }));
        return await runScript('wallet.ts', ['new', '--chain', 'base'], { DATA_DIR: elsewhere });
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    };
    const elsewhere = Promise.all([newWalletOn('http://10.1.2.3:8545'), newWalletOn(svc.url)]);

    const maker = await firstWallet();
    const opened = await post('/v1/positions', {
      chain: 'base',
      wallet: maker,
      deposits: [
        { symbol: 'USDC', amount: '1000000' },
        { symbol: 'USDT', amount: '1000000' },
      ],
    });
    const [otherChain, stranger, notJson] = await Promise.all([
      wallet('send', saved('other.json', { data: { ...opened.data, chainId: 1 } })),
      wallet(
        'send',
        saved('stranger.json', {
          data: { ...opened.data, wallet: '0x000000000000000000000000000000000000dEaD' },
        }),
      ),
      wallet('send', saved('garbage.json', { hello: 'world' })),
    ]);
    expect(otherChain.code).toBe(1);
    expect(otherChain.stderr).toMatch(/the answer is for chain id 1/);
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toMatch(/no key for 0x000000000000000000000000000000000000dEaD/);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/not a prepared answer/);

    const [remote, gateway] = await elsewhere;
    expect(remote.code).toBe(1);
    expect(remote.stderr).toMatch(/is not on this machine/);
    expect(gateway.code).toBe(1);
    expect(gateway.stderr).toMatch(/not the devnet's anvil/);
  });
});
