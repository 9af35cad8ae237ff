import type { Config } from '../config.ts'

export const PLAN_NAMES = ['free', 'starter', 'professional', 'scale', 'enterprise'] as const
export type PlanName = (typeof PLAN_NAMES)[number]

export interface Plan {
  name: PlanName
  /** lookups included per calendar month (UTC) */
  included: number
  /** true: stop at `included` with 429; false: keep serving and bill overage */
  hardCap: boolean
  /** price per extra call in mills (1/1000 dollar) */
  overageMills: number
  webhooks: boolean
  intervals: readonly ('monthly' | 'yearly')[]
}

/** API reference §8.1. Enterprise carries its own included/overage per subscription. */
export const PLANS: Record<PlanName, Plan> = {
  free: {
    name: 'free',
    included: 250,
    hardCap: true,
    overageMills: 0,
    webhooks: false,
    intervals: [],
  },
  starter: {
    name: 'starter',
    included: 10_000,
    hardCap: false,
    overageMills: 9,
    webhooks: true,
    intervals: ['monthly', 'yearly'],
  },
  professional: {
    name: 'professional',
    included: 50_000,
    hardCap: false,
    overageMills: 5,
    webhooks: true,
    intervals: ['monthly', 'yearly'],
  },
  scale: {
    name: 'scale',
    included: 200_000,
    hardCap: false,
    overageMills: 3,
    webhooks: true,
    intervals: ['monthly', 'yearly'],
  },
  enterprise: {
    name: 'enterprise',
    included: 500_000,
    hardCap: false,
    overageMills: 2,
    webhooks: true,
    intervals: ['monthly', 'yearly'],
  },
}

/** Plan prices in whole dollars (§8.2); professional and enterprise come from config. */
export function planPrice(
  plan: PlanName,
  interval: 'monthly' | 'yearly' | 'none',
  prices: Config['prices'],
): number | null {
  if (plan === 'free') return 0
  if (interval === 'none') return null
  switch (plan) {
    case 'starter':
      return interval === 'monthly' ? 99 : 990
    case 'scale':
      return interval === 'monthly' ? 499 : 4990
    case 'professional':
      return prices.professional[interval]
    case 'enterprise':
      return prices.enterprise[interval]
  }
}
export const isPlanName = (v: string): v is PlanName =>
  (PLAN_NAMES as readonly string[]).includes(v)
