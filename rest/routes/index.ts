import type { RestRoute } from '../route.js';

/** Every documented REST path; each domain adds its routes here. */
export const routes: RestRoute[] = [];
