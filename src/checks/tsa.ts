/**
 * RFC 3161 time-stamping of a chain head: the TimeStampReq sent over HTTP
 * (`application/timestamp-query`) and the TimeStampResp read back, both through pkijs/asn1js.
 * The head hash is itself a SHA-256, so it is sent as the message imprint unchanged; the answer
 * is accepted only when it is granted, carries a token, and the token's TSTInfo names exactly that
 * imprint (SHA-256 and the head hash) and our nonce.
 */
import { randomBytes } from 'node:crypto'
import * as asn1js from 'asn1js'
import * as pkijs from 'pkijs'

export const SHA256_OID = '2.16.840.1.101.3.4.2.1'
/** id-ct-TSTInfo, the content type of a time-stamp token's SignedData */
export const TST_INFO_OID = '1.2.840.113549.1.9.16.1.4'
const MAX_RESPONSE_BYTES = 256 * 1024

/** The DER TimeStampReq for a SHA-256 hash (hex), asking for the TSA's certificate. */
export function timeStampRequest(hashHex: string, nonce: Buffer): Buffer {
  const req = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256_OID }),
      hashedMessage: new asn1js.OctetString({ valueHex: Buffer.from(hashHex, 'hex') }),
    }),
    nonce: new asn1js.Integer({ valueHex: nonce }),
    certReq: true,
  })
  return Buffer.from(req.toSchema().toBER())
}

export interface TimeStamp {
  /** the TSA's time (ISO 8601) */
  gen_time: string
  /** the token's serial number (hex) */
  serial: string
  /** the TSA's policy OID */
  policy: string
}

const hex = (v: ArrayBuffer | Uint8Array) => Buffer.from(v as Uint8Array).toString('hex')

/** The TSTInfo of a time-stamp token (ContentInfo → SignedData → eContent). */
function tstInfoOf(token: pkijs.ContentInfo): pkijs.TSTInfo {
  const signed = new pkijs.SignedData({ schema: token.content })
  const e = signed.encapContentInfo
  if (e.eContentType !== TST_INFO_OID || !e.eContent)
    throw new Error('the token does not hold a TSTInfo')
  const der = asn1js.fromBER(e.eContent.getValue())
  if (der.offset === -1) throw new Error('the TSTInfo is not DER')
  return new pkijs.TSTInfo({ schema: der.result })
}

/**
 * Reads a TimeStampResp and checks it time-stamps `hashHex` (and carries `nonce`, when given):
 * its status is granted, its token's imprint is SHA-256 of exactly that hash. Throws the reason.
 * The TSA's signature and certificate are not validated here.
 */
export function readTimeStampResponse(der: Uint8Array, hashHex: string, nonce?: Buffer): TimeStamp {
  const asn = asn1js.fromBER(der)
  if (asn.offset === -1) throw new Error('the answer is not a DER TimeStampResp')
  let resp: pkijs.TimeStampResp
  try {
    resp = new pkijs.TimeStampResp({ schema: asn.result })
  } catch {
    throw new Error('the answer is not a TimeStampResp')
  }
  const status = resp.status.status
  if (status !== pkijs.PKIStatus.granted && status !== pkijs.PKIStatus.grantedWithMods)
    throw new Error(
      `the TSA refused (status ${String(status)}${resp.status.statusStrings?.length ? `: ${resp.status.statusStrings.map((s) => s.valueBlock.value).join('; ')}` : ''})`,
    )
  if (!resp.timeStampToken) throw new Error('the answer carries no time-stamp token')
  const tst = tstInfoOf(resp.timeStampToken)
  const imprint = tst.messageImprint
  if (imprint.hashAlgorithm.algorithmId !== SHA256_OID)
    throw new Error(`the token's imprint is not SHA-256 (${imprint.hashAlgorithm.algorithmId})`)
  const got = hex(imprint.hashedMessage.valueBlock.valueHexView)
  if (got !== hashHex) throw new Error(`the token's imprint ${got} is not the head hash ${hashHex}`)
  if (nonce && (!tst.nonce || hex(tst.nonce.valueBlock.valueHexView) !== nonce.toString('hex')))
    throw new Error("the token does not carry the request's nonce")
  return {
    gen_time: tst.genTime.toISOString(),
    serial: hex(tst.serialNumber.valueBlock.valueHexView),
    policy: tst.policy,
  }
}

/** A nonce whose DER INTEGER stays positive (high bit clear). */
export function newNonce(): Buffer {
  const n = randomBytes(8)
  n[0] = (n[0] ?? 0) & 0x7f
  return n
}

/** Sends the TimeStampReq for `hashHex` to `url`; answers the DER TimeStampResp and what it says. */
export async function timeStamp(
  fetchFn: typeof globalThis.fetch,
  url: string,
  hashHex: string,
  timeoutMs: number,
): Promise<{ response: Buffer; stamp: TimeStamp }> {
  const nonce = newNonce()
  const res = await fetchFn(url, {
    method: 'POST',
    headers: { 'content-type': 'application/timestamp-query' },
    body: timeStampRequest(hashHex, nonce),
    signal: AbortSignal.timeout(timeoutMs),
    redirect: 'error',
  })
  if (!res.ok) throw new Error(`the TSA answered HTTP ${res.status}`)
  const type = res.headers.get('content-type') ?? ''
  if (!type.startsWith('application/timestamp-reply'))
    throw new Error(
      `the TSA answered ${type || 'no content type'}, not application/timestamp-reply`,
    )
  const response = Buffer.from(await res.arrayBuffer())
  if (response.length > MAX_RESPONSE_BYTES) throw new Error('the TSA answer is too large')
  return { response, stamp: readTimeStampResponse(response, hashHex, nonce) }
}
