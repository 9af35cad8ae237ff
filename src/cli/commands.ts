/** Every CLI command, by name ("group sub" or a single word). */
import { accountsCommands } from './accounts.ts'
import { blocklistCommands } from './blocklist.ts'
import { checksCommands } from './checks.ts'
import { dataCommands } from './data.ts'
import type { CommandSpec } from './io.ts'
import { keysCommands } from './keys.ts'
import { mailCommands } from './mail.ts'
import { policyCommands } from './policy.ts'
import { reviewsCommands } from './reviews.ts'
import { syncCommands } from './sync.ts'
import { usageCommands } from './usage.ts'
import { usersCommands } from './users.ts'
import { watchCommands } from './watch.ts'
import { webhooksCommands } from './webhooks.ts'

export const COMMANDS: readonly CommandSpec[] = [
  ...accountsCommands,
  ...keysCommands,
  ...usageCommands,
  ...dataCommands,
  ...syncCommands,
  ...webhooksCommands,
  ...watchCommands,
  ...reviewsCommands,
  ...usersCommands,
  ...policyCommands,
  ...checksCommands,
  ...mailCommands,
  ...blocklistCommands,
]
