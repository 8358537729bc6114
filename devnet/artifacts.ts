/**
 * Compiled devnet contracts (written by `npm run contracts:compile`). The ABIs here are typed loosely
 * (`Abi`): for typed reads and writes use the `as const` ABIs of chain/abi.ts; these are for deploying.
 */
import type { Abi, Hex } from 'viem';
import AquaJson from './artifacts/Aqua.json' with { type: 'json' };
import AquaSwapVMRouterJson from './artifacts/AquaSwapVMRouter.json' with { type: 'json' };
import Multicall3Json from './artifacts/Multicall3.json' with { type: 'json' };
import TestPriceFeedJson from './artifacts/TestPriceFeed.json' with { type: 'json' };
import TestTokenJson from './artifacts/TestToken.json' with { type: 'json' };

export type Artifact = { contractName: string; abi: Abi; bytecode: Hex };

function artifact(json: { contractName: string; abi: unknown; bytecode: string }): Artifact {
  return { contractName: json.contractName, abi: json.abi as Abi, bytecode: json.bytecode as Hex };
}

export const artifacts = {
  TestToken: artifact(TestTokenJson),
  Aqua: artifact(AquaJson),
  AquaSwapVMRouter: artifact(AquaSwapVMRouterJson),
  Multicall3: artifact(Multicall3Json),
  TestPriceFeed: artifact(TestPriceFeedJson),
} as const satisfies Record<string, Artifact>;

export type ContractName = keyof typeof artifacts;
