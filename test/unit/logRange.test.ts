import { HttpRequestError, LimitExceededRpcError, RpcRequestError, TimeoutError } from 'viem';
import { describe, expect, it } from 'vitest';
import { GROW_AFTER, isRangeRefusal, LogRange, suggestedSpan } from '../../indexer/logRange.js';

const url = 'http://127.0.0.1:9';
const rpcError = (code: number, message: string) =>
  new RpcRequestError({ body: {}, error: { code, message }, url });

describe('isRangeRefusal', () => {
  it('knows the refusals of real providers', () => {
    expect(isRangeRefusal(new LimitExceededRpcError(rpcError(-32005, 'limit exceeded')))).toBe(true);
    expect(isRangeRefusal(rpcError(-32000, 'query returned more than 10000 results'))).toBe(true);
    expect(isRangeRefusal(rpcError(-32000, 'block range is too large'))).toBe(true);
    expect(isRangeRefusal(rpcError(-32602, 'eth_getLogs block range exceeds max'))).toBe(true);
    expect(
      isRangeRefusal(rpcError(-32000, 'query exceeds max results 20000, retry with the range 5-9')),
    ).toBe(true);
    expect(isRangeRefusal(new HttpRequestError({ status: 413, url }))).toBe(true);
    expect(isRangeRefusal(new TimeoutError({ body: {}, url }))).toBe(true);
  });

  it('does not take a rate limit, a server fault or a dropped connection for one', () => {
    expect(isRangeRefusal(new HttpRequestError({ status: 429, url }))).toBe(false);
    expect(isRangeRefusal(new HttpRequestError({ status: 502, url }))).toBe(false);
    expect(isRangeRefusal(new HttpRequestError({ url, details: 'fetch failed' }))).toBe(false);
    expect(isRangeRefusal(rpcError(-32603, 'internal error'))).toBe(false);
    expect(isRangeRefusal(new Error('block range is too large'))).toBe(false);
  });

  it('reads the range a provider suggests', () => {
    expect(suggestedSpan(rpcError(-32602, 'this block range should work: [0x10, 0x1f]'))).toBe(16);
    expect(suggestedSpan(rpcError(-32000, 'retry with the range 100-149'))).toBe(50);
    expect(suggestedSpan(rpcError(-32005, 'limit exceeded'))).toBeNull();
  });
});

describe('LogRange', () => {
  it('halves on a refusal, takes a narrower suggestion, and doubles back after answers', () => {
    const spans: number[] = [];
    const range = new LogRange(2000, (s) => spans.push(s));
    expect(range.refused(2000, rpcError(-32005, 'limit exceeded'))).toBe(true);
    expect(range.span).toBe(1000);
    expect(range.refused(1000, rpcError(-32602, 'should work: [0x0, 0x63]'))).toBe(true);
    expect(range.span).toBe(100);
    for (let i = 0; i < GROW_AFTER - 1; i++) range.answered(100);
    expect(range.span).toBe(100);
    range.answered(40); // a short tail range does not count
    expect(range.span).toBe(100);
    range.answered(100);
    expect(range.span).toBe(200);
    for (let i = 0; i < 10 * GROW_AFTER; i++) range.answered(range.span);
    expect(range.span).toBe(2000);
    expect(spans).toEqual([1000, 100, 200, 400, 800, 1600, 2000]);
  });

  it('cannot narrow a single block', () => {
    const range = new LogRange(1);
    expect(range.refused(1, rpcError(-32005, 'limit exceeded'))).toBe(false);
  });
});
