import type { WebhookEvent } from '../../domain/positionEvents.js';

/** The shapes of the webhook resolvers (GraphQL model of /v1/webhooks). */
export interface WebhookEndpoint {
  id: string;
  url: string;
  events: WebhookEvent[];
  createdAt: Date;
  /** When a rotation's previous secret stops signing (null: one secret signs). */
  previousSecretExpiresAt: Date | null;
  /** Set when a delivery exhausted its retries: nothing is queued or sent until a replay enables it again. */
  disabledAt: Date | null;
  disabledReason: string | null;
}

export interface WebhookWithSecret {
  webhook: WebhookEndpoint;
  /** `whsec_…`: shown once, at creation and at rotation. */
  secret: string;
}

export interface WebhookAttempt {
  /** 1-based within its generation (a replay starts generation + 1 at attempt 1). */
  attempt: number;
  generation: number;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  nextAttemptAt: Date | null;
}

export interface WebhookDelivery {
  /** `msg_…`: the webhook-id header of every attempt and replay. */
  id: string;
  event: WebhookEvent;
  positionId: string;
  occurredAt: Date;
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: Date | null;
  completedAt: Date | null;
  attempts: WebhookAttempt[];
}
