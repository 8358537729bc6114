// The operator page's (web/app.js) refresh loop: a task run on an interval, paused while the tab is
// hidden, held back by Retry-After on 429, and run sooner on demand.

/**
 * Runs `task` now and again after `interval()` ms, waiting while the tab is hidden and for Retry-After
 * on 429. `poke()` runs it sooner, at most once per `minGapMs`.
 */
export function every(task, interval, minGapMs = 0) {
  let timer = null;
  let running = false;
  let again = false;
  let last = 0;
  let notBefore = 0;
  const schedule = (wait) => {
    clearTimeout(timer);
    timer = document.hidden ? null : setTimeout(run, Math.max(wait, notBefore - Date.now(), 0));
  };
  const run = async () => {
    timer = null;
    if (document.hidden) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    last = Date.now();
    try {
      await task();
    } catch (error) {
      if (error?.status === 429 && error.retryAfter) notBefore = Date.now() + error.retryAfter * 1000;
    }
    running = false;
    const wait = again ? minGapMs : interval();
    again = false;
    schedule(wait);
  };
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && timer === null && !running) run();
  });
  run();
  return {
    poke() {
      if (document.hidden) return;
      if (running) again = true;
      else schedule(last + minGapMs - Date.now());
    },
  };
}
