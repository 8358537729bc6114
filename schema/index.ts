import { builder } from './builder.js';
import './apiKey.js';
import './chain.js';
import './health.js';
import './pilot.js';
import './position.js';
import './positionList.js';
import './quote.js';
import './stats.js';
import './swap.js';
import './strategy.js';

export const schema = builder.toSchema({ sortSchema: true });
