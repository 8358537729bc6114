/**
 * Webhook signing secrets. The service signs every delivery, so it must keep the secret itself (a hash
 * would not do): with WEBHOOK_SECRETS_KEY set it is sealed at rest with AES-256-GCM (`v1:` iv, tag and
 * ciphertext, base64url), so a copy of the database alone does not let anyone forge deliveries. Without
 * the key it is stored as given (`plain:`), and the service says so once at start.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A new `whsec_` secret: 32 bytes of a CSPRNG, base64 (the Standard Webhooks form). */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function sealSecret(secret: string, key: Buffer | undefined): string {
  if (!key) return `plain:${secret}`;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), sealed]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join(':');
}

export function openSecret(stored: string, key: Buffer | undefined): string {
  if (stored.startsWith('plain:')) return stored.slice('plain:'.length);
  const [version, iv, tag, sealed] = stored.split(':');
  if (version !== 'v1' || !iv || !tag || !sealed) throw new Error('unknown sealed secret format');
  if (!key) throw new Error('a webhook secret is sealed but WEBHOOK_SECRETS_KEY is not set');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
}
