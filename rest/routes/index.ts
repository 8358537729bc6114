import type { RestRoute } from '../route.js';
import { analyticsRoutes } from './analytics.js';
import { badgeRoutes } from './badge.js';
import { catalogueRoutes } from './catalogue.js';
import { eventRoutes } from './events.js';
import { leaderboardRoutes } from './leaderboard.js';
import { pilotRoutes } from './pilot.js';
import { positionActionRoutes } from './positionActions.js';
import { positionExportRoutes, positionListRoutes } from './positionList.js';
import { positionRoutes } from './positions.js';
import { quoteRoutes } from './quote.js';
import { rebalanceRoutes } from './rebalance.js';
import { swapRoutes } from './swaps.js';
import { webhookRoutes } from './webhooks.js';

/** Every documented REST path; each domain adds its routes here. */
export const routes: RestRoute[] = [
  ...catalogueRoutes,
  ...analyticsRoutes,
  ...leaderboardRoutes,
  ...badgeRoutes,
  ...quoteRoutes,
  ...pilotRoutes,
  ...positionExportRoutes,
  ...positionRoutes,
  ...positionListRoutes,
  ...positionActionRoutes,
  ...rebalanceRoutes,
  ...swapRoutes,
  ...eventRoutes,
  ...webhookRoutes,
];
