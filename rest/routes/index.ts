import type { RestRoute } from '../route.js';
import { badgeRoutes } from './badge.js';
import { catalogueRoutes } from './catalogue.js';
import { pilotRoutes } from './pilot.js';
import { positionActionRoutes } from './positionActions.js';
import { positionExportRoutes, positionListRoutes } from './positionList.js';
import { positionRoutes } from './positions.js';
import { quoteRoutes } from './quote.js';
import { swapRoutes } from './swaps.js';

/** Every documented REST path; each domain adds its routes here. */
export const routes: RestRoute[] = [
  ...catalogueRoutes,
  ...badgeRoutes,
  ...quoteRoutes,
  ...pilotRoutes,
  ...positionExportRoutes,
  ...positionRoutes,
  ...positionListRoutes,
  ...positionActionRoutes,
  ...swapRoutes,
];
