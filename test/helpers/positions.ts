import type { ChainConfig } from '../../lib/config.js';
import type { Db } from '../../store/db.js';

/** A position row written directly (as POST /v1/positions would store it), for list and export tests. */
export async function insertPositionRow(
  db: Db,
  p: {
    hash: string;
    keyId: string;
    chain: ChainConfig;
    wallet: string;
    createdAt: string;
    metadata?: Record<string, string> | null;
    symbolA?: string;
  },
): Promise<void> {
  const [a, b] = p.chain.tokens as [ChainConfig['tokens'][0], ChainConfig['tokens'][0]];
  const payload = {
    position: {
      tokenA: { symbol: p.symbolA ?? a.symbol, decimals: a.decimals },
      tokenB: { symbol: b.symbol, decimals: b.decimals },
    },
  };
  await db.query(
    `INSERT INTO positions (strategy_hash, key_id, chain_key, chain_id, wallet, token_a, token_b, amount_a, amount_b,
       maker_fee_bps, protocol_fee_bps, request_fingerprint, payload, metadata, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 1000000, 2000000, 30, 5, 'fp', $8, $9, $10)`,
    [
      p.hash,
      p.keyId,
      p.chain.key,
      p.chain.chainId,
      p.wallet.toLowerCase(),
      a.address.toLowerCase(),
      b.address.toLowerCase(),
      JSON.stringify(payload),
      p.metadata ? JSON.stringify(p.metadata) : null,
      p.createdAt,
    ],
  );
}

/** Cells of an RFC 4180 body (quoted cells with doubled quotes, CRLF records). */
/**
 * `rows` positions of one key on `chain`'s first pair, generated in Postgres (generate_series: 100k rows
 * in a second), for the export's volume tests. Row g (from `first`, default 1) has hash and wallet g, amounts g·1000 / g·2000,
 * metadata `{ orderRef: "acme-g", ...metadata }` and created_at 2026-01-01 plus g ms.
 */
export async function insertGeneratedPositions(
  db: Db,
  p: { keyId: string; chain: ChainConfig; rows: number; metadata?: Record<string, string>; first?: number },
): Promise<void> {
  const [a, b] = p.chain.tokens as [ChainConfig['tokens'][0], ChainConfig['tokens'][0]];
  await db.query(
    `INSERT INTO positions (strategy_hash, key_id, chain_key, chain_id, wallet, token_a, token_b, amount_a, amount_b,
       maker_fee_bps, protocol_fee_bps, request_fingerprint, payload, metadata, created_at)
     SELECT '0x' || lpad(to_hex(g), 64, '0'), $1, 'base', 8453, '0x' || lpad(to_hex(g), 40, '0'), $2, $3,
            g * 1000, g * 2000, 30, 5, 'fp',
            jsonb_build_object('position', jsonb_build_object(
              'tokenA', jsonb_build_object('symbol', 'USDC', 'decimals', 6),
              'tokenB', jsonb_build_object('symbol', 'USDT', 'decimals', 6))),
            jsonb_build_object('orderRef', 'acme-' || g) || $5::jsonb,
            timestamptz '2026-01-01' + g * interval '1 millisecond'
       FROM generate_series($6::int, $6::int + $4::int - 1) g`,
    [
      p.keyId,
      a.address.toLowerCase(),
      b.address.toLowerCase(),
      p.rows,
      JSON.stringify(p.metadata ?? {}),
      p.first ?? 1,
    ],
  );
}

export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(cell);
      records.push(record);
      record = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || record.length > 0) throw new Error('CSV body does not end with CRLF');
  return records;
}
