import { writeSync } from 'node:fs';

/** Characters of lines held before they are written, and the longest a line waits at a quiet time. */
const BATCH_CHARS = 16_384;
const BATCH_MS = 100;
/** How long a write waits, in all, for a full pipe to drain before the batch is given up. */
const BLOCKED_GIVE_UP_MS = 5_000;

/**
 * A line held as its fields, its text built when its batch is written (`toString`): the request that
 * logs it only keeps an object (lib/accessLog.ts). Built together, one batch's lines run one hot
 * loop, where built one per request each of them paid for a cold cache (the lone requests of a
 * service below saturation: bench/extras.ts, paced).
 */
export interface HeldLine {
  /** The serialised line, newline included. */
  toString(): string;
}

/**
 * Where the service's JSON log lines go: a file descriptor (stdout), in batches. Lines are held until
 * 16 K characters are waiting or 100 ms have passed, then written with one system call, and whatever is
 * held is written on `exit` (a crash included: node emits `exit` after an uncaught exception). A SIGKILL
 * loses at most the last 100 ms.
 *
 * Why not pino's own destination (sonic-boom): with a write per line (its default), the access log is a
 * system call per request, a tenth of a cached read (bench/extras.ts); with its `minLength` buffering,
 * every write still measures the UTF-8 length of the whole pending buffer (`Buffer.byteLength` of a
 * string that grows to the batch size). Held in an array and joined once per batch, a line costs a
 * fraction of a microsecond over building it.
 *
 * A batch is written synchronously, as pino's synchronous destination writes every line: a reader that
 * falls behind (a full pipe, EAGAIN) makes the writer wait, up to 5 s per batch, before the batch is
 * dropped with a line on stderr (one a minute at most).
 */
export class BatchedLines {
  /** Lines in order: text, or held lines whose text `Array.join` builds when the batch is written. */
  private parts: (string | HeldLine)[] = [];
  private chars = 0;

  constructor(private readonly fd = 1) {
    setInterval(() => this.flushSync(), BATCH_MS).unref();
    process.once('exit', () => this.flushSync());
  }

  /** pino's destination interface: one serialised line, newline included. */
  write(line: string): boolean {
    this.parts.push(line);
    this.chars += line.length;
    if (this.chars >= BATCH_CHARS) this.flushSync();
    return true;
  }

  /** A line whose text is built when its batch is written; `chars`: about how long it will be. */
  hold(line: HeldLine, chars: number): void {
    this.parts.push(line);
    this.chars += chars;
    if (this.chars >= BATCH_CHARS) this.flushSync();
  }

  /** pino's `logger.flush(cb)` (a batch that cannot be written is dropped, never thrown: `writeAll`). */
  flush(cb?: () => void): void {
    this.flushSync();
    cb?.();
  }

  /**
   * Writes every line held, now. The batch is taken before its held lines are built: one whose text
   * cannot be built loses its batch (said once on stderr, as a write that fails) and not every later one.
   */
  flushSync(): void {
    if (this.parts.length === 0) return;
    const parts = this.parts;
    this.parts = [];
    this.chars = 0;
    let text: string;
    try {
      text = parts.length === 1 ? String(parts[0]) : parts.join('');
    } catch (error) {
      droppedLines += parts.length;
      noteDropped(String(error));
      return;
    }
    writeAll(this.fd, Buffer.from(text));
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));
/** What was dropped since the last note on stderr, and when that note was written (one a minute at most). */
let droppedBytes = 0;
let droppedLines = 0;
let lastNoteAt = 0;

/** Says that log lines were dropped where an operator may still look (once a minute at most). */
function noteDropped(reason: string): void {
  const now = Date.now();
  if (now - lastNoteAt < 60_000) return;
  lastNoteAt = now;
  try {
    const lines = droppedLines > 0 ? `, ${droppedLines} lines that could not be built` : '';
    writeSync(2, `log lines dropped (${droppedBytes} bytes${lines}): ${reason}\n`);
    droppedBytes = 0;
    droppedLines = 0;
  } catch {
    // stderr gone too
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  let offset = 0;
  let waitedMs = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' && waitedMs < BLOCKED_GIVE_UP_MS) {
        Atomics.wait(pause, 0, 0, 1);
        waitedMs += 1;
        continue;
      }
      // EPIPE (the reader is gone), EBADF, or a reader stalled for seconds: these lines cannot be
      // written; say so, and go on serving.
      droppedBytes += bytes.length - offset;
      noteDropped(code ?? String(error));
      return;
    }
  }
}
