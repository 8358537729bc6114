/** The EIP-5792 call bundle every prepared answer carries beside its `transactions`. */
import type { WalletCall, WalletCallBundle as WalletCallBundleShape } from '../domain/walletCalls.js';
import { builder } from './builder.js';
import { as, fixed } from './valueFormats.js';

const WalletCallRef = builder.objectRef<WalletCall>('WalletCall').implement({
  description: 'One call of the bundle: a step of `transactions`.',
  fields: (t) => ({
    to: t.exposeString('to', { description: 'The contract called.', extensions: as('address') }),
    data: t.exposeString('data', { description: 'The calldata.' }),
    value: t.exposeString('value', { description: 'Native value in wei, hex ("0x0").' }),
  }),
});

export const WalletCallBundle = builder.objectRef<WalletCallBundleShape>('WalletCallBundle').implement({
  description:
    'The steps as the params of an EIP-5792 `wallet_sendCalls`, in the order of `transactions`: a wallet that supports it signs them in one confirmation. Nothing is signed or sent by the service.',
  fields: (t) => ({
    version: t.exposeString('version', {
      description: 'The EIP-5792 version of the shape.',
      extensions: fixed('2.0.0'),
    }),
    chainId: t.exposeString('chainId', { description: 'The chain id, hex.' }),
    from: t.exposeString('from', { description: 'The wallet that signs.', extensions: as('address') }),
    atomicRequired: t.exposeBoolean('atomicRequired', {
      description:
        'False: the calls may run one after the other; a wallet able to batch them atomically may.',
      extensions: fixed(false),
    }),
    calls: t.field({ type: [WalletCallRef], description: 'The calls, in order.', resolve: (b) => b.calls }),
  }),
});
