import type { Caller } from '../keys/keys.ts'

export interface AppEnv {
  Variables: {
    requestId: string
    caller: Caller
    /** the matched route pattern for logs and metrics */
    route?: string
  }
}
