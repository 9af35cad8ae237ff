import type { Caller } from '../keys/keys.ts'

export interface AppEnv {
  Variables: {
    requestId: string
    caller: Caller
  }
}
