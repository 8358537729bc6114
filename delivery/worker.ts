/**
 * The webhook delivery worker: graphile-worker runs one `webhook_deliver` job per attempt, at most
 * WEBHOOK_CONCURRENCY at once per process, taken with `FOR UPDATE SKIP LOCKED` so that several replicas
 * on one database make each attempt once; a new job wakes it through LISTEN/NOTIFY. A failed attempt
 * queues the next one after the next delay of WEBHOOK_RETRY_SCHEDULE (in the transaction recording it);
 * after the last, the delivery is given up and its endpoint disabled (logged, and counted in
 * `gateway_webhook_deliveries_total{outcome="exhausted"}`).
 *
 * Fair to the other endpoints: an endpoint's jobs run in two named queues of its own (at most two of
 * its attempts at once, store/migrations/021_webhook_fairness.sql); after WEBHOOK_CIRCUIT_FAILURES
 * failures in a row its circuit opens and its due attempts are put off, not made, until a probe
 * delivers; and an endpoint that failed last time gets at most a quarter of this process's slots.
 */

import { type Runner, run, runMigrations, type Task, Logger as WorkerLogger } from 'graphile-worker';
import { buildPayload } from '../domain/positionEvents.js';
import type { Logger } from '../lib/logger.js';
import type { Services } from '../lib/services.js';
import type { Db } from '../store/db.js';
import { withMigrationLock } from '../store/migrate.js';
import {
  type ClaimedDelivery,
  claimDelivery,
  deferAttempt,
  fixPayload,
  recordAttempt,
  releaseClaim,
  unlockStaleClaims,
} from '../store/webhookWorker.js';
import { openSecret } from './secrets.js';
import { type AttemptResult, postSigned } from './send.js';
import { checkTarget } from './ssrf.js';

/** graphile-worker's log lines through the service's pino (its debug chatter stays at debug). */
function workerLogger(logger: Logger): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const method =
      level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' ? 'debug' : 'trace';
    logger[method]({ component: 'webhook-worker', ...scope, ...(meta ?? {}) }, message);
  });
}

/**
 * graphile-worker's schema (its own migrations), needed wherever events can be queued. The queue's schema, through `pool`: a pool of the queue's own (service.ts), since graphile-worker adds
 * its error listeners to every client of the pool it is given and keeps them after it stops.
 */
export async function migrateQueue(services: Services, pool: Db): Promise<void> {
  // Under our migration lock: two replicas starting together would race in graphile-worker's set-up.
  await withMigrationLock(pool, () => runMigrations({ pgPool: pool, logger: workerLogger(services.logger) }));
}

function isDeliveryJob(payload: unknown): payload is { deliveryId: string; generation: number } {
  const p = payload as { deliveryId?: unknown; generation?: unknown } | null;
  return typeof p?.deliveryId === 'string' && typeof p.generation === 'number';
}

/** One attempt of one delivery (the `webhook_deliver` task). */
export function deliveryTask(services: Services): Task {
  const { config, db, metrics } = services;
  const hooks = config.webhooks;
  const suspectSlots = Math.max(1, Math.floor(hooks.concurrency / 4));
  let suspectsInFlight = 0;
  return async (payload, helpers) => {
    if (!isDeliveryJob(payload)) return;
    const workerId = helpers.job.locked_by ?? 'unknown';
    const d = await claimDelivery(db, payload.deliveryId, payload.generation, workerId);
    if (!d) return;
    // A leftover claim (its holder died, or a failure could not release it): graphile-worker runs this
    // job again after its backoff, by when the sweep has released a dead worker's claim.
    if (d === 'held') throw new Error(`delivery ${payload.deliveryId} is still claimed; trying again later`);
    if (d.disabled_at) {
      await releaseClaim(db, d.delivery_id);
      return;
    }
    const now = Date.now();
    const suspect = d.consecutive_failures > 0;
    const putOffTo =
      d.circuit_open_until && d.circuit_open_until.getTime() > now
        ? d.circuit_open_until
        : suspect && suspectsInFlight >= suspectSlots
          ? new Date(now + Math.min(hooks.timeoutMs, SUSPECT_WAIT_MS))
          : null;
    if (putOffTo) {
      await deferAttempt(db, d, putOffTo);
      metrics?.webhookDelivery('deferred');
      return;
    }
    if (suspect) suspectsInFlight += 1;
    try {
      await makeAttempt(services, d);
    } catch (error) {
      // graphile-worker runs the job again later: it must find the delivery unclaimed.
      await releaseClaim(db, d.delivery_id).catch(() => {});
      throw error;
    } finally {
      if (suspect) suspectsInFlight -= 1;
    }
  };
}

/** How long an attempt to a failing endpoint waits when the slots for failing endpoints are taken. */
const SUSPECT_WAIT_MS = 2000;

/** Longest an open circuit puts attempts off (each failed probe doubles WEBHOOK_CIRCUIT_OPEN_MS up to it). */
const CIRCUIT_MAX_OPEN_MS = 5 * 60_000;

/** The secrets that sign an attempt: the endpoint's, and its previous one until that expires. */
function signingSecrets(d: ClaimedDelivery, key: Buffer | undefined): string[] {
  const open = (sealed: string) => {
    try {
      return openSecret(sealed, key);
    } catch (error) {
      throw new Error(
        `the endpoint's signing secret does not open with WEBHOOK_SECRETS_KEY (${(error as Error).message})`,
      );
    }
  };
  const secrets = [open(d.secret)];
  if (d.previous_secret && d.previous_secret_expires_at && d.previous_secret_expires_at > new Date())
    secrets.push(open(d.previous_secret));
  return secrets;
}

/** One attempt of a claimed delivery, and its record. */
async function makeAttempt(services: Services, d: ClaimedDelivery): Promise<void> {
  const { config, db, registry, logger, metrics } = services;
  const hooks = config.webhooks;
  const body =
    d.payload ??
    (await buildPayload(db, registry, d).then((built) =>
      built === null ? null : fixPayload(db, d.delivery_id, built),
    ));
  if (body === null) {
    await releaseClaim(db, d.delivery_id);
    return;
  }
  const attemptedAt = new Date();
  let result: AttemptResult;
  try {
    // A secret that no longer opens (WEBHOOK_SECRETS_KEY changed) fails the attempt like a refused
    // target: it goes through the retry schedule to a disabled endpoint that says why, instead of a job
    // that throws until graphile-worker gives up and leaves the delivery pending for ever.
    const secrets = signingSecrets(d, hooks.secretsKey);
    // Checked again now, and the connection goes to the address checked (DNS rebinding).
    const target = await checkTarget(new URL(d.url), hooks);
    result = await postSigned(target, { id: d.delivery_id, body, secrets }, hooks.timeoutMs);
  } catch (error) {
    result = {
      statusCode: null,
      durationMs: Math.round(Date.now() - attemptedAt.getTime()),
      error: `refused: ${(error as Error).message}`,
    };
  }
  const attempt = d.attempts + 1;
  const delay = hooks.retryScheduleMs[attempt - 1];
  const outcome = result.error === null ? 'delivered' : delay === undefined ? 'exhausted' : 'retry';
  const nextAttemptAt = outcome === 'retry' ? new Date(Date.now() + delay!) : null;
  const disabledReason =
    outcome === 'exhausted'
      ? `Delivery ${d.delivery_id} failed ${attempt} times (last: ${result.error}); replay a delivery to enable the endpoint again.`
      : null;
  const recorded = await recordAttempt(db, {
    deliveryId: d.delivery_id,
    webhookId: d.webhook_id,
    generation: d.generation,
    attempt,
    attemptedAt,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    error: result.error,
    nextAttemptAt,
    outcome,
    disabledReason,
    circuit: {
      failures: hooks.circuitFailures,
      openMs: hooks.circuitOpenMs,
      maxOpenMs: Math.max(CIRCUIT_MAX_OPEN_MS, hooks.circuitOpenMs),
    },
  });
  metrics?.webhookDelivery(outcome);
  // Ids, codes and times only: never the URL's secrets, the payload or its metadata.
  const fields = {
    webhookId: d.webhook_id,
    deliveryId: d.delivery_id,
    event: d.event_type,
    attempt,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    outcome,
  };
  if (outcome === 'delivered') logger.debug(fields, 'webhook delivered');
  else if (outcome === 'retry')
    logger.info({ ...fields, error: result.error, nextAttemptAt }, 'webhook attempt failed');
  if (recorded.disabled)
    logger.warn({ ...fields, error: result.error }, 'webhook endpoint disabled: retries exhausted');
  else if (recorded.circuitOpenUntil && !d.circuit_open_until)
    logger.warn(
      { ...fields, error: result.error, until: recorded.circuitOpenUntil },
      'webhook endpoint failing: its attempts are put off',
    );
}

export interface WebhookWorker {
  stop(): Promise<void>;
}

/** Starts the worker (unless WEBHOOK_WORKER=off) and its sweep of attempts left by a dead process. */
export async function startWebhookWorker(services: Services, pool: Db): Promise<WebhookWorker> {
  const { config, logger, db } = services;
  if (!config.webhooks.secretsKey) {
    logger.warn(
      'WEBHOOK_SECRETS_KEY is not set: webhook signing secrets are stored unsealed in the database',
    );
  }
  if (!config.webhooks.worker) return { stop: async () => {} };
  const runner: Runner = await run({
    pgPool: pool,
    concurrency: config.webhooks.concurrency,
    noHandleSignals: true,
    // A retry's job has a future run_at, which no NOTIFY announces: the worker finds it at its next poll,
    // so the poll is at most half the shortest delay of the schedule (bounded to 100 ms – 2 s).
    pollInterval: Math.max(100, Math.min(2000, Math.floor(Math.min(...config.webhooks.retryScheduleMs) / 2))),
    logger: workerLogger(logger),
    taskList: { webhook_deliver: deliveryTask(services) },
  });
  // An attempt lasts at most the timeout plus a few statements: a claim twice that old (plus slack) is a dead process's.
  const staleMs = 2 * config.webhooks.timeoutMs + 5_000;
  const sweep = setInterval(
    () => {
      unlockStaleClaims(db, staleMs).then(
        (workers) => {
          if (workers.length > 0) logger.warn({ workers }, 'webhook attempts of a dead worker released');
        },
        (err: unknown) => logger.debug({ err }, 'webhook sweep failed'),
      );
    },
    Math.min(30_000, staleMs),
  );
  sweep.unref();
  return {
    async stop() {
      clearInterval(sweep);
      await runner.stop();
    },
  };
}
