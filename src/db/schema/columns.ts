import { integer } from 'drizzle-orm/sqlite-core'

/** A timestamp column: Unix ms in UTC. */
export const ts = (name?: string) => (name ? integer(name) : integer())
