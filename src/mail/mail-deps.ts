/** What the mail domain's functions need (a subset of Deps). */
import type { Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import type { Sqlite } from '../db/open.ts'
import type { Logger } from '../log.ts'
import type { TransportFactory } from './transport.ts'

export interface MailDeps {
  db: Sqlite
  config: Pick<Config, 'mail' | 'publicUrl'>
  clock: Clock
  random: () => number
  log: Logger
  /** builds the connection to the mail server (tests pass one trusting their own certificate) */
  transport?: TransportFactory
}
