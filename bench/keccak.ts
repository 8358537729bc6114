/**
 * `npm run bench:keccak`: CPU per keccak256 call, viem's (pure JavaScript) against chain/keccak.ts
 * (hash-wasm's WebAssembly), on a prepare's real strategy (`buildPositionOrder`) and on 704 bytes, in this
 * process; each after a warm-up of its own. Prints µs per call and the ratio (RESULTS.md, fourteenth pass).
 *   BENCH_CALLS (20000)
 */
import { type Hex, keccak256 as viemKeccak256 } from 'viem';
import { keccak256 } from '../chain/keccak.js';
import { buildPositionOrder } from '../resolvers/positions/order.js';
import { ownCpuMsSince } from './measure.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);

function perCallUs(hash: (data: Hex) => Hex, data: Hex): number {
  for (let i = 0; i < 2_000; i++) hash(data);
  const cpu = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) hash(data);
  return (ownCpuMsSince(cpu) * 1000) / CALLS;
}

const { strategy } = buildPositionOrder({
  wallet: '0x1111111111111111111111111111111111111111',
  feeReceiver: '0x2222222222222222222222222222222222222222',
  makerFeeBps: 30_000,
  salt: 12_345_678_901_234n,
});
const inputs: Array<[string, Hex]> = [
  [`a prepare's strategy (${(strategy.length - 2) / 2} bytes)`, strategy],
  ['704 bytes', `0x${'ab'.repeat(704)}`],
];
for (const [name, data] of inputs) {
  if (keccak256(data) !== viemKeccak256(data)) throw new Error(`the two digests of ${name} differ`);
  const viem = perCallUs(viemKeccak256, data);
  const wasm = perCallUs(keccak256, data);
  console.log(
    `${name}: viem ${viem.toFixed(1)} µs, hash-wasm ${wasm.toFixed(1)} µs of CPU per call (${(viem / wasm).toFixed(1)}× less)`,
  );
}
