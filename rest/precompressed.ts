import { brotliCompressSync, constants, crc32, deflateRawSync, gzipSync } from 'node:zlib';

/**
 * gzip and br bodies of the form `<prefix><suffix>` where the prefix is the same for many responses
 * (`{"data":<the cached data>`) and the suffix is per request (`,"meta":{"requestId":…}}`): the prefix
 * is compressed once, each response only appends its suffix uncompressed and closes the stream. A
 * cached read then costs no compression at all (with the `compression` package's streams: 7x the CPU
 * of the plain response for gzip, 19x for br; bench/extras.ts), and loses ~200 bytes of ratio.
 *
 * The framing is the formats' own, decodable by any conforming decoder:
 * - gzip (RFC 1952) around raw deflate (RFC 1951): the prefix's deflate stream ends with a sync flush
 *   (byte-aligned, not final); the suffix follows as one final stored block (BFINAL=1, BTYPE=00, LEN,
 *   NLEN, the bytes); the trailer's CRC-32 continues the prefix's over the suffix, ISIZE is the total.
 * - brotli (RFC 7932): the prefix's stream ends with a flush (byte-aligned, not last); the suffix follows
 *   as one uncompressed meta-block (ISLAST=0, MNIBBLES=4, MLEN-1, ISUNCOMPRESSED=1, padding, the bytes),
 *   then an empty last meta-block (ISLAST=1, ISLASTEMPTY=1: the byte 0x03).
 */

/** The largest suffix one stored block / one 4-nibble meta-block carries. */
const MAX_SUFFIX = 65_535;

/** What the compression wrapper (the `compression` package) would use: br at quality 4, gzip at 6. */
const BR_QUALITY = 4;

export type Encoding = 'br' | 'gzip';

export class PrecompressedPrefix {
  private readonly bytes: Buffer;
  private gzipHead?: Buffer;
  private brHead?: Buffer;
  private crc?: number;

  constructor(prefix: string) {
    this.bytes = Buffer.from(prefix);
  }

  /** Bytes of the uncompressed prefix. */
  get length(): number {
    return this.bytes.length;
  }

  /** The whole body, `encoding`-compressed; undefined for a suffix longer than one block carries. */
  encode(encoding: Encoding, suffix: string): Buffer | undefined {
    const n = Buffer.byteLength(suffix);
    if (n === 0 || n > MAX_SUFFIX) return undefined;
    return encoding === 'gzip' ? this.gzip(suffix, n) : this.br(suffix, n);
  }

  private gzip(suffix: string, n: number): Buffer {
    if (this.gzipHead === undefined) {
      // The 10-byte gzip header of node's own gzip, then the prefix's deflate stream, sync-flushed.
      const header = gzipSync(Buffer.alloc(0)).subarray(0, 10);
      const body = deflateRawSync(this.bytes, { finishFlush: constants.Z_SYNC_FLUSH });
      this.gzipHead = Buffer.concat([header, body]);
      this.crc = crc32(this.bytes);
    }
    const head = this.gzipHead;
    const out = Buffer.allocUnsafe(head.length + 5 + n + 8);
    head.copy(out, 0);
    let at = head.length;
    out[at++] = 0x01;
    out.writeUInt16LE(n, at);
    out.writeUInt16LE(~n & 0xffff, at + 2);
    at += 4;
    out.write(suffix, at);
    out.writeUInt32LE(crc32(out.subarray(at, at + n), this.crc), at + n);
    out.writeUInt32LE((this.bytes.length + n) >>> 0, at + n + 4);
    return out;
  }

  private br(suffix: string, n: number): Buffer {
    if (this.brHead === undefined) {
      this.brHead = brotliCompressSync(this.bytes, {
        finishFlush: constants.BROTLI_OPERATION_FLUSH,
        params: {
          [constants.BROTLI_PARAM_QUALITY]: BR_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: this.bytes.length,
        },
      });
    }
    const head = this.brHead;
    const out = Buffer.allocUnsafe(head.length + 3 + n + 1);
    head.copy(out, 0);
    // ISLAST=0 (bit 0), MNIBBLES=0 i.e. 4 nibbles (bits 1-2), MLEN-1 (bits 3-18), ISUNCOMPRESSED=1 (bit 19).
    const bits = ((n - 1) << 3) | (1 << 19);
    let at = head.length;
    out[at++] = bits & 0xff;
    out[at++] = (bits >>> 8) & 0xff;
    out[at++] = (bits >>> 16) & 0xff;
    out.write(suffix, at);
    // An empty last meta-block: ISLAST=1, ISLASTEMPTY=1.
    out[at + n] = 0x03;
    return out;
  }
}
