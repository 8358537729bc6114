import { builder } from './builder.js';
import './apiKey.js';
import './chain.js';
import './health.js';
import './maker.js';
import './pilot.js';
import './preparedPosition.js';
import './position.js';
import './program.js';
import './positionList.js';
import './quote.js';
import './series.js';
import './stats.js';
import './swap.js';
import './webhook.js';
import './strategy.js';
import './strategyList.js';

export const schema = builder.toSchema({ sortSchema: true });
