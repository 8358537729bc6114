/**
 * A devnet chain's saved state, written so that no crash can tear it: anvil's own `--state` writes the
 * file in place, and a kill during that write left it truncated ("EOF while parsing"), so the chain
 * started afresh under a catalogue that still held its history. Here the state is asked of anvil over
 * RPC (`anvil_dumpState`: gzipped JSON), written to a temporary file beside the target, flushed to disk
 * and renamed over it: a reader sees the previous state or the new one, never half of one. The file is
 * the JSON `--load-state` reads.
 *
 * anvil 1.7 makes a genesis block of its own at every `--load-state` and keeps the loaded one beside it,
 * so the state it dumps after a load holds two blocks numbered 0 (three after two loads…), and the next
 * load takes whichever comes last: half the time a genesis its block 1 does not descend from. An indexer
 * reading that chain saw another genesis, re-indexed, and failed on block 1 for ever. The state is
 * saved with the chain's own genesis only: the oldest of them (a regenerated one is made at load time).
 */
import { open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

const gunzipAsync = promisify(gunzip);

/** Asks anvil for its state; rejects when it does not answer within `timeoutMs`. */
async function dumpedState(rpcUrl: string, timeoutMs: number): Promise<Buffer> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_dumpState', params: [] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message?: string } };
  if (typeof body.result !== 'string' || !body.result.startsWith('0x'))
    throw new Error(`anvil_dumpState failed: ${body.error?.message ?? 'no result'}`);
  return gunzipAsync(Buffer.from(body.result.slice(2), 'hex'));
}

/** Writes `bytes` to `file` atomically: a temporary file, flushed, then renamed over it. */
export async function writeAtomically(file: string, bytes: Buffer): Promise<void> {
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  const handle = await open(temporary, 'w', 0o644);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, file);
}

interface DumpedBlock {
  header: { number: string; timestamp: string };
}

/**
 * The state with one genesis block, the chain's own (the oldest). Unchanged when there is one, or when
 * a number in it would not survive a JSON round trip in JavaScript (none does today).
 */
export function withOwnGenesis(state: Buffer): Buffer {
  let unsafe = false;
  const parsed = JSON.parse(state.toString('utf8'), (_key, value: unknown) => {
    if (typeof value === 'number' && !Number.isSafeInteger(value) && Number.isInteger(value)) unsafe = true;
    return value;
  }) as { blocks?: DumpedBlock[] };
  const blocks = parsed.blocks;
  if (unsafe || !Array.isArray(blocks)) return state;
  const geneses = blocks.filter((b) => Number(b.header.number) === 0);
  if (geneses.length <= 1) return state;
  const own = geneses.reduce((a, b) => (Number(b.header.timestamp) < Number(a.header.timestamp) ? b : a));
  parsed.blocks = blocks.filter((b) => Number(b.header.number) !== 0 || b === own);
  return Buffer.from(JSON.stringify(parsed));
}

/** Saves the chain's current state to `file` (atomically). */
export async function saveState(rpcUrl: string, file: string, timeoutMs = 10_000): Promise<void> {
  await writeAtomically(file, withOwnGenesis(await dumpedState(rpcUrl, timeoutMs)));
}

/**
 * Makes `file` (a state saved before its genesis was kept alone) hold the chain's own genesis only, so
 * that `--load-state` takes the right one. A file that is not JSON is left to anvil to refuse.
 */
export async function keepOwnGenesis(file: string): Promise<void> {
  let state: Buffer;
  try {
    state = await readFile(file);
  } catch {
    return;
  }
  let fixed: Buffer;
  try {
    fixed = withOwnGenesis(state);
  } catch {
    return;
  }
  if (fixed !== state) await writeAtomically(file, fixed);
}

/** Removes the temporary files a killed writer left beside `file` (they are never read). */
export async function removeLeftovers(file: string): Promise<void> {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix) && name.endsWith('.tmp'))
      .map((name) => rm(path.join(dir, name), { force: true })),
  );
}
