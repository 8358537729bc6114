import { type Db, query } from './db.js';

export interface ApiKeyRow {
  key_id: string;
  environment: 'test' | 'live';
  secret_hash: Buffer;
  scopes: string[];
  origins: string[] | null;
  label: string | null;
  prepare_limit_per_minute: number;
  write_limit_per_minute: number;
  created_at: Date;
  revoked_at: Date | null;
}

export async function insertApiKey(
  db: Db,
  row: Pick<
    ApiKeyRow,
    | 'key_id'
    | 'environment'
    | 'secret_hash'
    | 'scopes'
    | 'origins'
    | 'label'
    | 'prepare_limit_per_minute'
    | 'write_limit_per_minute'
  >,
): Promise<void> {
  await query(
    db,
    `INSERT INTO api_keys (key_id, environment, secret_hash, scopes, origins, label, prepare_limit_per_minute,
                           write_limit_per_minute)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      row.key_id,
      row.environment,
      row.secret_hash,
      row.scopes,
      row.origins,
      row.label,
      row.prepare_limit_per_minute,
      row.write_limit_per_minute,
    ],
  );
}

export async function findApiKey(db: Db, keyId: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await query<ApiKeyRow>(db, 'SELECT * FROM api_keys WHERE key_id = $1', [keyId]);
  return rows[0];
}

export async function revokeApiKey(db: Db, keyId: string): Promise<boolean> {
  const { rowCount } = await query(
    db,
    'UPDATE api_keys SET revoked_at = now() WHERE key_id = $1 AND revoked_at IS NULL',
    [keyId],
  );
  return (rowCount ?? 0) > 0;
}

export async function listApiKeys(db: Db): Promise<ApiKeyRow[]> {
  const { rows } = await query<ApiKeyRow>(db, 'SELECT * FROM api_keys ORDER BY created_at DESC');
  return rows;
}

/** Whether an active key lists `origin` among its origins (the /v1 CORS preflight, rest/cors.ts). */
export async function anyKeyAllowsOrigin(db: Db, origin: string): Promise<boolean> {
  const { rows } = await query<{ listed: boolean }>(
    db,
    'SELECT EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL AND $1 = ANY (origins)) AS listed',
    [origin],
  );
  return rows[0]?.listed === true;
}

/** Where every change to a key's row is announced, with its key_id (migration 016). */
export const API_KEY_CHANGES_CHANNEL = 'api_key_changes';
