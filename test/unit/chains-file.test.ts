import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HttpRequestError, RpcRequestError, TimeoutError } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { backoffReasonOf, redactRpcUrl, redactUrls, wellFormed } from '../../chain/endpoints.js';
import { DEPLOYED_AQUA, DEPLOYED_ROUTER } from '../../lib/chainPresets.js';
import { chainConfigSchema, chainEntrySchema, readChainsFile } from '../../lib/chains.js';
import { loadConfig } from '../../lib/config.js';

const dir = mkdtempSync(path.join(tmpdir(), 'chains-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function chainsFile(content: unknown): string {
  const file = path.join(dir, `chains-${n++}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const FEE = '0x00000000000000000000000000000000000000fe';

describe('CHAINS_FILE over the presets', () => {
  it('takes a key and its RPC URLs; the preset gives chain id, contracts and tokens', () => {
    const [base, arc, sepolia] = readChainsFile(
      chainsFile({
        chains: [
          { key: 'base', rpcUrls: ['https://a.example/v2/KEY', 'https://b.example'], feeReceiver: FEE },
          { key: 'arc', rpcUrls: ['https://arc.example'], feeReceiver: FEE },
          { key: 'baseSepolia', rpcUrl: 'https://sepolia.example', feeReceiver: FEE },
        ],
      }),
    );
    expect(base).toMatchObject({
      key: 'base',
      chainId: 8453,
      rpcUrl: 'https://a.example/v2/KEY',
      fallbackRpcUrls: ['https://b.example'],
      aqua: DEPLOYED_AQUA,
      router: DEPLOYED_ROUTER,
      multicall: '0xca11bde05977b3631167028862be2a173976ca11',
      testnet: false,
      startBlock: 0,
    });
    expect(base!.tokens.map((t) => [t.symbol, t.decimals])).toEqual([
      ['USDC', 6],
      ['USDT', 6],
    ]);
    expect(arc).toMatchObject({ chainId: 5042, testnet: false, depositSymbols: ['USDC', 'EURC'] });
    expect(arc!.tokens.map((t) => t.address)).toEqual(['0x3600000000000000000000000000000000000000']);
    expect(sepolia).toMatchObject({ chainId: 84532, testnet: true });
    expect(sepolia!.fallbackRpcUrls).toBeUndefined();
  });

  it('lets every field be overridden; tokens merge by symbol', () => {
    const eurc = { symbol: 'EURC', address: '0x00000000000000000000000000000000000000e1', decimals: 6 };
    const usdc = { symbol: 'USDC', address: '0x00000000000000000000000000000000000000c1', decimals: 6 };
    const [base] = readChainsFile(
      chainsFile({
        chains: [
          {
            key: 'base',
            rpcUrls: ['http://127.0.0.1:8545'],
            feeReceiver: FEE,
            router: '0x00000000000000000000000000000000000000aa',
            startBlock: 31_000_000,
            tokens: [usdc, eurc],
          },
        ],
      }),
    );
    expect(base!.router).toBe('0x00000000000000000000000000000000000000aa');
    expect(base!.aqua).toBe(DEPLOYED_AQUA);
    expect(base!.startBlock).toBe(31_000_000);
    expect(base!.tokens.map((t) => [t.symbol, t.address])).toEqual([
      ['USDC', usdc.address],
      ['USDT', '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2'],
      ['EURC', eurc.address],
    ]);
  });

  it('accepts in an entry every field a chain has (the devnet manifest writes them all)', () => {
    const entryFields = new Set(Object.keys(chainEntrySchema.shape));
    expect(Object.keys(chainConfigSchema.shape).filter((field) => !entryFields.has(field))).toEqual([]);
    const [base] = readChainsFile(
      chainsFile({
        chains: [{ key: 'base', rpcUrls: ['http://127.0.0.1:1'], feeReceiver: FEE, confirmations: 0 }],
      }),
    );
    expect(base!.confirmations).toBe(0);
  });

  it('refuses with a message naming the entry and the field', () => {
    const cases: [unknown, RegExp][] = [
      [
        { chains: [{ key: 'base', feeReceiver: FEE }] },
        /chains\.0 \(key "base"\): rpcUrls: at least one RPC URL/,
      ],
      [
        { chains: [{ key: 'base', rpcUrls: ['https://a.example'] }] },
        /chains\.0 \(key "base"\): feeReceiver/,
      ],
      [
        { chains: [{ key: 'base', rpcUrls: ['ws://a.example'], feeReceiver: FEE }] },
        /chains\.0\.rpcUrls\.0: must be an http\(s\) URL/,
      ],
      [
        {
          chains: [
            { key: 'base', rpcUrls: ['https://a.example'], feeReceiver: FEE, rpcUrl: 'https://b.example' },
          ],
        },
        /give rpcUrl or rpcUrls, not both/,
      ],
      [
        {
          chains: [{ key: 'base', rpcUrls: ['https://a.example'], feeReceiver: FEE, routr: DEPLOYED_ROUTER }],
        },
        /chains\.0: Unrecognized key: "routr"/,
      ],
      [
        { chains: [{ key: 'optimism', rpcUrls: ['https://a.example'], feeReceiver: FEE }] },
        /chains\.0 \(key "optimism"\): chainId: .*no preset for key "optimism" \(presets: base, arc, baseSepolia\)/,
      ],
      [
        { chains: [{ key: 'base', rpcUrls: ['https://a.example'], feeReceiver: FEE, chainId: 10 }] },
        /chainId 10 is not the preset's 8453: give aqua, router and tokens too/,
      ],
      [
        { chains: [{ key: 'base', rpcUrls: ['https://a.example'], feeReceiver: '0x12' }] },
        /feeReceiver: must be/,
      ],
      ['{ not json', /invalid chains file .*JSON/],
    ];
    for (const [content, message] of cases) {
      expect(() => readChainsFile(chainsFile(content))).toThrow(message);
    }
  });
});

describe('RPC configuration', () => {
  it('reads timeouts per call kind, retries and backoff, with defaults', () => {
    const defaults = loadConfig({});
    expect(defaults).toMatchObject({
      rpcTimeoutMs: 3000,
      rpcQuoteTimeoutMs: 3000,
      rpcLogsTimeoutMs: 20_000,
      rpcRetryCount: 0,
      rpcBackoffMs: 1000,
      rpcBackoffMaxMs: 30_000,
    });
    const set = loadConfig({ RPC_TIMEOUT_MS: '2000', RPC_QUOTE_TIMEOUT_MS: '800', RPC_RETRY_COUNT: '2' });
    expect([set.rpcTimeoutMs, set.rpcQuoteTimeoutMs, set.rpcRetryCount]).toEqual([2000, 800, 2]);
    expect(() => loadConfig({ RPC_RETRY_COUNT: '9' })).toThrow(/RPC_RETRY_COUNT/);
  });
});

describe('RPC endpoint helpers', () => {
  it('cut URLs to their origin: an API key in a path or a query never shows', () => {
    expect(redactRpcUrl('https://user:pw@base.g.alchemy.com/v2/SECRET?key=SECRET')).toBe(
      'https://base.g.alchemy.com',
    );
    expect(
      redactUrls('HTTP request failed.\nURL: https://rpc.example:8443/SECRET?k=SECRET.\nStatus: 429'),
    ).toBe('HTTP request failed.\nURL: https://rpc.example:8443\nStatus: 429');
  });

  it('check result shapes of the methods the service calls', () => {
    expect(wellFormed('eth_call', '0x')).toBe(true);
    expect(wellFormed('eth_call', '0xzz')).toBe(false);
    expect(wellFormed('eth_call', 12)).toBe(false);
    expect(wellFormed('eth_getLogs', [])).toBe(true);
    expect(wellFormed('eth_getLogs', {})).toBe(false);
    expect(wellFormed('eth_getBlockByNumber', null)).toBe(true);
    expect(wellFormed('eth_getBlockByNumber', '0x1')).toBe(false);
    expect(wellFormed('web3_clientVersion', 'anvil')).toBe(true);
  });

  it('back off an endpoint for transport failures, not for an answer of the node', () => {
    const url = 'https://rpc.example/KEY';
    const body = { method: 'eth_call' };
    const headers = new Headers({ 'retry-after': '3' });
    expect(backoffReasonOf(new HttpRequestError({ body, url, status: 429, headers }))).toBe('rate_limited');
    expect(backoffReasonOf(new HttpRequestError({ body, url, status: 502 }))).toBe('unavailable');
    expect(
      backoffReasonOf(new HttpRequestError({ body, url, cause: new SyntaxError('Unexpected token <') })),
    ).toBe('malformed');
    expect(backoffReasonOf(new TimeoutError({ body, url }))).toBe('timeout');
    expect(
      backoffReasonOf(new RpcRequestError({ body, url, error: { code: -32007, message: 'limit' } })),
    ).toBe('rate_limited');
    // The node answered: a revert or a refused range is the request's fault, not the endpoint's.
    expect(
      backoffReasonOf(new RpcRequestError({ body, url, error: { code: 3, message: 'execution reverted' } })),
    ).toBe(null);
    expect(
      backoffReasonOf(
        new RpcRequestError({ body, url, error: { code: -32005, message: 'range too large' } }),
      ),
    ).toBe(null);
    expect(backoffReasonOf(new TypeError('fetch failed'))).toBe('unavailable');
  });
});
