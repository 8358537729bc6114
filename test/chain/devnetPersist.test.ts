import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_CHAINS } from '../../devnet/chains.js';
import { launchChain, stateFileOf } from '../../devnet/persist.js';
import type { ChainConfig } from '../../lib/config.js';
import { testPort } from '../helpers/ports.js';

const PORT = testPort(18765);
const spec = DEVNET_CHAINS.find((c) => c.key === 'baseSepolia')!;
const saved: ChainConfig = {
  key: spec.key,
  chainId: spec.chainId,
  name: spec.name,
  rpcUrl: `http://127.0.0.1:${PORT}`,
  aqua: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  router: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  multicall: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
  feeReceiver: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
  testnet: true,
  tokens: [],
  startBlock: 0,
};
let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'devnet-persist-'));
  mkdirSync(path.join(dataDir, 'devnet'), { recursive: true });
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function rpc(rpcUrl: string, method: string): Promise<string> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
  });
  return ((await res.json()) as { result: string }).result;
}
async function block(rpcUrl: string, number: string): Promise<{ hash: string; parentHash: string }> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: [number, false] }),
  });
  return ((await res.json()) as { result: { hash: string; parentHash: string } }).result;
}
const blockNumberOf = async (rpcUrl: string) => Number.parseInt(await rpc(rpcUrl, 'eth_blockNumber'), 16);

describe('devnet chain state files', () => {
  it('sets an unreadable state aside and starts the chain afresh', async () => {
    const file = stateFileOf(dataDir, spec.key);
    writeFileSync(file, '{"not": "a state"');
    const launched = await launchChain(spec, PORT, dataDir, [saved]);
    try {
      expect(launched.saved).toBeNull();
      expect(existsSync(`${file}.unreadable`)).toBe(true);
      expect(await blockNumberOf(launched.anvil.rpcUrl)).toBe(0);
    } finally {
      await launched.anvil.stop();
    }
    // The stop wrote a readable state: with the manifest entry it is loaded next time.
    expect(existsSync(file)).toBe(true);
    const again = await launchChain(spec, PORT, dataDir, [saved]);
    try {
      expect(again.saved).toEqual(saved);
      await rpc(again.anvil.rpcUrl, 'evm_mine');
      await rpc(again.anvil.rpcUrl, 'evm_mine');
      expect(await blockNumberOf(again.anvil.rpcUrl)).toBe(2);
    } finally {
      await again.anvil.stop();
    }
  });

  it('ignores a state file without a manifest entry for its chain (removed, the chain starts empty)', async () => {
    const file = stateFileOf(dataDir, spec.key);
    expect(existsSync(file)).toBe(true);
    const loaded = await launchChain(spec, PORT, dataDir, [saved]);
    try {
      expect(await blockNumberOf(loaded.anvil.rpcUrl)).toBe(2);
    } finally {
      await loaded.anvil.stop();
    }
    const launched = await launchChain(spec, PORT, dataDir, [{ ...saved, chainId: 1 }]);
    try {
      expect(launched.saved).toBeNull();
      expect(await blockNumberOf(launched.anvil.rpcUrl)).toBe(0);
    } finally {
      await launched.anvil.stop();
    }
  });

  it('keeps the chain’s own genesis through restarts: block 1 always descends from block 0', async () => {
    const file = stateFileOf(dataDir, spec.key);
    rmSync(file, { force: true });
    let genesis: string | undefined;
    for (let restart = 0; restart < 4; restart++) {
      // A genesis anvil makes at load differs from the chain's only once the clock's second has moved on.
      const second = Math.floor(Date.now() / 1000);
      while (Math.floor(Date.now() / 1000) === second)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const launched = await launchChain(spec, PORT, dataDir, [saved]);
      try {
        await rpc(launched.anvil.rpcUrl, 'evm_mine');
        const [zero, one] = await Promise.all(['0x0', '0x1'].map((n) => block(launched.anvil.rpcUrl, n)));
        expect(one!.parentHash, `restart ${restart}`).toBe(zero!.hash);
        genesis ??= zero!.hash;
        expect(zero!.hash, `restart ${restart}`).toBe(genesis);
      } finally {
        await launched.anvil.stop();
      }
      // anvil adds a genesis of its own at each load: the saved state holds only the chain's.
      const state = JSON.parse(readFileSync(file, 'utf8')) as { blocks: { header: { number: string } }[] };
      expect(state.blocks.filter((b) => Number(b.header.number) === 0)).toHaveLength(1);
    }
  });
});
