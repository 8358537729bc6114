import { builder } from './builder.js';

builder.queryField('serviceVersion', (t) =>
  t.string({ description: 'The API version this service serves.', resolve: () => 'v1' }),
);
