import { describe, expect, it } from 'vitest';
import { type BreakerState, CircuitBreaker } from '../../lib/redisBreaker.js';

function breaker(threshold = 3) {
  const changes: BreakerState[] = [];
  return { b: new CircuitBreaker(threshold, (state) => changes.push(state)), changes };
}

describe('the Redis circuit breaker', () => {
  it('opens after the threshold of consecutive failures, not before', () => {
    const { b, changes } = breaker();
    b.failed('timeout');
    b.failed('timeout');
    expect(b.state).toBe('closed');
    expect(b.allows).toBe(true);
    b.failed('timeout');
    expect(b.state).toBe('open');
    expect(b.allows).toBe(false);
    expect(changes).toEqual(['open']);
  });

  it('counts failures in a row only: an answer in between starts the count again', () => {
    const { b } = breaker();
    for (let i = 0; i < 10; i++) {
      b.failed('timeout');
      b.failed('timeout');
      b.succeeded();
    }
    expect(b.state).toBe('closed');
  });

  it('half-opens after the cool-down: the probe answered closes it, the probe failed opens it again', () => {
    const { b, changes } = breaker();
    for (let i = 0; i < 3; i++) b.failed('timeout');
    b.halfOpen();
    expect(b.state).toBe('half-open');
    expect(b.allows).toBe(false);
    b.failed('timeout');
    expect(b.state).toBe('open');
    b.halfOpen();
    b.succeeded();
    expect(b.state).toBe('closed');
    expect(b.allows).toBe(true);
    expect(changes).toEqual(['open', 'half-open', 'open', 'half-open', 'closed']);
  });

  it('half-opens only from open', () => {
    const { b, changes } = breaker();
    b.halfOpen();
    expect(b.state).toBe('closed');
    expect(changes).toEqual([]);
  });
});
