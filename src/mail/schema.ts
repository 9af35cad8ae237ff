/** Request and answer schemas of the contact verification API (routes document them once). */
import { z } from 'zod'

export const VerificationId = z
  .string()
  .regex(/^cv_[A-Za-z0-9_-]{16}$/, 'a contact verification id such as cv_…')

export const ContactVerificationRequest = z
  .strictObject({
    dot: z.union([z.string(), z.number().int()]).meta({
      description: 'the USDOT number of the company whose registered contact gets the code',
    }),
    channel: z
      .literal('email')
      .meta({ description: 'how the code is sent: `email` (to the address on the FMCSA record)' }),
  })
  .meta({ description: 'Send a one-time code to the contact on the FMCSA record' })
export type ContactVerificationRequest = z.infer<typeof ContactVerificationRequest>

export const ConfirmRequest = z
  .strictObject({
    code: z
      .string()
      .regex(/^\d{6}$/, 'the 6-digit code')
      .meta({ description: 'the code the company read to you' }),
  })
  .meta({ description: 'The code the company received' })

export const ContactVerificationJson = z
  .object({
    id: z.string().meta({ description: 'name it as `contact_verification_id` in POST /v1/checks' }),
    dot_number: z.string(),
    channel: z.literal('email'),
    sent_to: z.string().meta({ description: 'the address on file, masked (`d*****@acme…`)' }),
    status: z.enum(['pending', 'verified', 'locked']),
    tries_left: z.number().int(),
    created_at: z.string(),
    expires_at: z
      .string()
      .meta({ description: 'the code is refused after this instant (15 minutes)' }),
    verified_at: z.string().nullable(),
  })
  .meta({ description: 'A contact verification (the code itself is never shown)' })

export const ConfirmJson = z
  .object({
    result: z.enum(['verified', 'wrong_code', 'expired', 'too_many_attempts']).meta({
      description:
        '`verified` once the right code was given (it stays so); `wrong_code` counts a try (5 in all)',
    }),
    verification: ContactVerificationJson,
  })
  .meta({ description: 'The outcome of a confirmation' })
