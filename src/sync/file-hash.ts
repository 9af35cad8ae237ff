/**
 * The SHA-256 and size of input files: what a version stores and what a check cites. A census
 * file is gigabytes, so a file is read in pieces into one reused buffer (a stream's fresh buffer
 * per piece leaves garbage for a thread that allocates nothing else to collect).
 */
import { createHash } from 'node:crypto'
import { open } from 'node:fs/promises'
import { basename } from 'node:path'

/** Bytes read at a time. */
const READ_BYTES = 1 << 20

export interface FileHash {
  file: string
  sha256: string
  bytes: number
}

/** One file's hash; a stop (the signal) ends the reading. */
export async function hashFile(
  path: string,
  signal: AbortSignal,
  buf: Buffer = Buffer.allocUnsafe(READ_BYTES),
): Promise<FileHash> {
  const h = createHash('sha256')
  const file = await open(path, 'r')
  try {
    for (;;) {
      signal.throwIfAborted()
      const { bytesRead } = await file.read(buf, 0, buf.length, null)
      if (bytesRead === 0) break
      h.update(buf.subarray(0, bytesRead))
    }
    return { file: basename(path), sha256: h.digest('hex'), bytes: (await file.stat()).size }
  } finally {
    await file.close()
  }
}

/** Every input's hash (file id → path), one file after another through one buffer. */
export async function hashFiles(
  inputs: ReadonlyMap<string, string>,
  signal: AbortSignal,
): Promise<Record<string, FileHash>> {
  const out: Record<string, FileHash> = {}
  const buf = Buffer.allocUnsafe(READ_BYTES)
  for (const [id, path] of inputs) out[id] = await hashFile(path, signal, buf)
  return out
}

/**
 * Starts hashing the inputs beside a build that reads them: the hashing reads ahead of the
 * parser, which then finds the file in the page cache. Awaiting the result is the caller's (a
 * run's `settle`); a run stopped before it leaves the result unread, so a rejection is never
 * reported as unhandled.
 */
export function hashBeside(
  inputs: ReadonlyMap<string, string>,
  signal: AbortSignal,
): Promise<Record<string, FileHash>> {
  const hashing = hashFiles(inputs, signal)
  hashing.catch(() => {})
  return hashing
}
