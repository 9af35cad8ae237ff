/** What the console's middleware puts on every request: the session, the client address, a CSP nonce. */
import type { Session } from '../users/sessions.ts'

export interface ConsoleEnv {
  Variables: {
    requestId: string
    session: Session | null
    address: string | null
    nonce: string
    flash: string | null
  }
}
