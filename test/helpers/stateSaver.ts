/**
 * A child process for the state-file test (test/chain/devnetStateKill.test.ts): one anvil on the given
 * state file, saved every few milliseconds with a block mined after each save, so that every save
 * writes a new state and a kill lands during one. The chain is given a state of about a megabyte.
 * Prints `{"loaded":N}` (the block the loaded state starts at) and then `{"saved":true}` per save; a
 * state anvil cannot load ends it with `{"unloadable":"…"}`.
 *
 * One block per save, not blocks mined back to back: that loop kept a core busy for the whole file
 * (the saver and its anvil) and grew the state with thousands of blocks, so saves slowed round after
 * round; the running anvil keeps this process alive.
 */
import { startAnvil } from '../../devnet/anvil.js';

const [file, port] = [process.argv[2]!, Number(process.argv[3])];
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const rpc = async (rpcUrl: string, method: string, params: unknown[] = []): Promise<string> => {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: string }).result;
};

try {
  const rpcUrl = `http://127.0.0.1:${port}`;
  const anvil = await startAnvil({
    port,
    chainId: 31337,
    stateFile: file,
    stateIntervalMs: 20,
    onStateSaved: (error) => {
      say(error ? { saveFailed: error.message } : { saved: true });
      // It fails only once the chain is gone, when this process is being killed too.
      void rpc(rpcUrl, 'evm_mine').catch(() => {});
    },
  });
  const loaded = Number.parseInt(await rpc(anvil.rpcUrl, 'eth_blockNumber'), 16);
  // A state the size of a seeded devnet chain's (about a megabyte), so a save takes long enough to be hit.
  if (loaded === 0) {
    const code = `0x${'5b'.repeat(16_000)}`;
    for (let i = 1; i <= 32; i++)
      await rpc(anvil.rpcUrl, 'anvil_setCode', [`0x${i.toString(16).padStart(40, '0')}`, code]);
  }
  say({ loaded });
} catch (error) {
  say({ unloadable: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
