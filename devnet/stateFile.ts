/**
 * A devnet chain's saved state, written so that no crash can tear it: anvil's own `--state` writes the
 * file in place, and a kill during that write left it truncated ("EOF while parsing"), so the chain
 * started afresh under a catalogue that still held its history. Here the state is asked of anvil over
 * RPC (`anvil_dumpState`: gzipped JSON), written to a temporary file beside the target, flushed to disk
 * and renamed over it: a reader sees the previous state or the new one, never half of one. The file is
 * the JSON `--load-state` reads.
 */
import { open, readdir, rename, rm } from 'node:fs/promises';
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

/** Saves the chain's current state to `file` (atomically). */
export async function saveState(rpcUrl: string, file: string, timeoutMs = 10_000): Promise<void> {
  await writeAtomically(file, await dumpedState(rpcUrl, timeoutMs));
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
