/**
 * `simulate=true` on a prepared answer (open, approvals, dock, swap): the bundle run in one
 * eth_simulateV1 (resolvers/bundleSimulation.ts), and whether it could run, in `preflight`.
 */
import type {
  AllowanceChange,
  BundleSimulation as BundleSimulationShape,
  Simulated,
  SimulatedStep as SimulatedStepShape,
  TokenChange,
} from '../resolvers/bundleSimulation.js';
import { builder } from './builder.js';
import { enumOf, StepPurpose } from './enums.js';
import { as } from './valueFormats.js';

export const SimulationAvailability = enumOf(
  'SimulationAvailability',
  'Whether the bundle was simulated (asked with `simulate`).',
  {
    simulated: 'The bundle ran in one eth_simulateV1 on the latest block: see `simulation`.',
    unavailable:
      "The chain's RPC does not serve eth_simulateV1 (method not found or not supported): the answer is prepared as without `simulate`, and `simulation` is absent.",
  },
);

const changeFields = {
  token: 'The token contract, checksummed.',
  symbol: 'The token symbol; null when the chain does not list the token.',
  before: "The wallet's value before the step, base units.",
  after: "The wallet's value after the step, base units.",
  change: 'after − before, base units, signed ("-1000000" when it went down).',
};

const BalanceChange = builder.objectRef<TokenChange>('SimulatedBalanceChange').implement({
  description: "A change of the wallet's token balance made by one simulated step.",
  fields: (t) => ({
    token: t.exposeString('token', { description: changeFields.token, extensions: as('address') }),
    symbol: t.exposeString('symbol', { nullable: true, description: changeFields.symbol }),
    before: t.exposeString('before', { description: changeFields.before, extensions: as('baseUnits') }),
    after: t.exposeString('after', { description: changeFields.after, extensions: as('baseUnits') }),
    change: t.exposeString('change', { description: changeFields.change }),
  }),
});

const AllowanceChangeRef = builder.objectRef<AllowanceChange>('SimulatedAllowanceChange').implement({
  description: "A change of the wallet's allowance of a token to a spender made by one simulated step.",
  fields: (t) => ({
    token: t.exposeString('token', { description: changeFields.token, extensions: as('address') }),
    symbol: t.exposeString('symbol', { nullable: true, description: changeFields.symbol }),
    spender: t.exposeString('spender', {
      description: 'The spender: Aqua, or the SwapVM router for a swap.',
      extensions: as('address'),
    }),
    spenderName: t.exposeString('spenderName', { description: 'The spender in words.' }),
    before: t.exposeString('before', { description: changeFields.before, extensions: as('baseUnits') }),
    after: t.exposeString('after', { description: changeFields.after, extensions: as('baseUnits') }),
    change: t.exposeString('change', { description: changeFields.change }),
  }),
});

const SimulatedStep = builder.objectRef<SimulatedStepShape>('SimulatedStep').implement({
  description: 'One step of `transactions` as the simulation ran it, after the steps before it.',
  fields: (t) => ({
    step: t.exposeInt('step', { description: 'The step of `transactions`.', extensions: as('positive') }),
    purpose: t.expose('purpose', { type: StepPurpose, description: 'What the step does.' }),
    success: t.exposeBoolean('success', {
      description: 'True: the step ran (a bundle with a step that reverts is answered 422 instead).',
    }),
    gasUsed: t.exposeString('gasUsed', {
      description:
        'Gas the step used in the simulation, as its receipt reports it when sent on the same state (after refunds, with the 21000 base and the calldata).',
      extensions: as('decimal'),
    }),
    gasLimit: t.exposeString('gasLimit', {
      description:
        'A suggested gas limit: gasUsed × 1.3, rounded up. The margin covers the refunds a step earns (at most a fifth of the gas spent, so it needs up to 1.25 × gasUsed before them) and the 1/64 an inner call keeps back; a wallet may estimate its own.',
      extensions: as('decimal'),
    }),
    balanceChanges: t.field({
      type: [BalanceChange],
      resolve: (s) => s.balanceChanges,
      description:
        "The wallet's balances of the answer's tokens this step changed (only those that changed); native ETH is not traced (the steps carry no value, and the gas fee depends on the price the wallet pays).",
    }),
    allowanceChanges: t.field({
      type: [AllowanceChangeRef],
      resolve: (s) => s.allowanceChanges,
      description: "The wallet's allowances of the answer's tokens to its spender this step changed.",
    }),
  }),
});

export const BundleSimulation = builder.objectRef<BundleSimulationShape>('BundleSimulation').implement({
  description:
    "`transactions` run in order from the wallet on the latest block in ONE eth_simulateV1 request (nothing signed or sent). The wallet's balances and allowances are read by a Multicall3 aggregate3 call before the first step and after each step inside the same simulated block, so a step's changes are the difference of the reads around it.",
  fields: (t) => ({
    steps: t.field({ type: [SimulatedStep], resolve: (s) => s.steps, description: 'Every step, in order.' }),
    gasUsed: t.exposeString('gasUsed', {
      description: 'The gas of all the steps together.',
      extensions: as('decimal'),
    }),
  }),
});

/** The `simulation` field of every prepared answer. */
export const SIMULATION_DESCRIPTION =
  'With `simulate` only, when the bundle was simulated (absent otherwise, and when `preflight.simulation` is `unavailable`): the steps as they ran.';

/** The preflight of an answer that had none before `simulate` (approvals, dock, swap). */
export const SimulationPreflight = builder
  .objectRef<Simulated['preflight']>('SimulationPreflight')
  .implement({
    description: 'What was checked before answering, with `simulate`.',
    fields: (t) => ({
      simulation: t.expose('simulation', {
        type: SimulationAvailability,
        description: 'Whether the bundle was simulated.',
      }),
    }),
  });
