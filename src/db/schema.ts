/**
 * app.db: the appliance's own state, one file per owner under schema/ (accounts and keys, datasets
 * and syncs, webhooks, reviews, console users, checks, mail, identity, onboarding). drizzle reads
 * this file; `npm run db:generate` writes migrations/ from it. Timestamps are Unix ms in UTC
 * (`ts()`), enums are text with a CHECK.
 */
export * from './schema/keys.ts'
export * from './schema/datasets.ts'
export * from './schema/webhooks.ts'
export * from './schema/reviews.ts'
export * from './schema/users.ts'
export * from './schema/checks.ts'
export * from './schema/mail.ts'
export * from './schema/identity.ts'
export * from './schema/onboarding.ts'
