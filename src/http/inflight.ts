/**
 * The requests whose handler is still running, so a stopping server can wait for them before it
 * closes what they use. A client that goes away does not end its request's handler, but it does
 * close the connection, so `server.close()` can return while handlers still wait on a record
 * worker, a cross-check or the metering commit; closing the record workers and the databases under
 * them then ends those handlers in a 500 (logged and counted in /metrics, though no client reads
 * it), and a stored check that was being written is lost.
 */
export interface Inflight {
  /** `handler`, counted from its call until its result (a value or a promise) settles */
  track<A extends unknown[], R>(handler: (...args: A) => R): (...args: A) => R
  /** handlers running now */
  readonly running: number
  /** resolves true once no handler runs, false when `ms` pass first */
  drained(ms: number): Promise<boolean>
}

export function inflight(): Inflight {
  let running = 0
  const waiters = new Set<() => void>()
  const done = () => {
    running -= 1
    if (running === 0) for (const w of waiters) w()
  }
  return {
    track:
      <A extends unknown[], R>(handler: (...args: A) => R) =>
      (...args: A): R => {
        running += 1
        let result: R
        try {
          result = handler(...args)
        } catch (err) {
          done()
          throw err
        }
        if (result instanceof Promise) result.then(done, done)
        else done()
        return result
      },
    get running() {
      return running
    },
    drained: (ms) =>
      running === 0
        ? Promise.resolve(true)
        : new Promise<boolean>((resolve) => {
            const finish = (ok: boolean) => {
              clearTimeout(timer)
              waiters.delete(idle)
              resolve(ok)
            }
            const idle = () => finish(true)
            const timer = setTimeout(() => finish(false), ms)
            waiters.add(idle)
          }),
  }
}
