/** The answer of the position actions (top-up, dock): unsigned steps for the position's wallet. */
import type { PositionStatusRow } from '../../store/positions.js';
import type { Simulated } from '../bundleSimulation.js';
import type { PreparedTransaction } from './types.js';

export interface PositionAction {
  positionId: string;
  strategyHash: string;
  chain: string;
  chainId: number;
  wallet: string;
  transactions: PreparedTransaction[];
  preparedAt: string;
  /** With `simulate` only. */
  preflight?: Simulated['preflight'] | null;
  simulation?: Simulated['simulation'];
}

export function actionOf(
  row: PositionStatusRow,
  wallet: string,
  transactions: PreparedTransaction[],
): PositionAction {
  return {
    positionId: row.strategy_hash,
    strategyHash: row.strategy_hash,
    chain: row.chain_key,
    chainId: row.chain_id,
    wallet,
    transactions,
    preparedAt: new Date().toISOString(),
  };
}
