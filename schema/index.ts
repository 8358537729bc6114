import { builder } from './builder.js';
import './apiKey.js';
import './health.js';

export const schema = builder.toSchema({ sortSchema: true });
