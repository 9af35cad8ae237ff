/**
 * An RFC 3161 time-stamp authority on 127.0.0.1 for tests: reads each TimeStampReq with pkijs and
 * answers a real TimeStampResp, a TSTInfo in a CMS SignedData signed by a self-made ECDSA P-256
 * certificate. `mode` makes it answer a wrong imprint, a refusal, or plain text.
 */
import { webcrypto } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as asn1js from 'asn1js'
import * as pkijs from 'pkijs'
import { TST_INFO_OID } from '../checks/tsa.ts'

const SIGNED_DATA_OID = '1.2.840.113549.1.7.2'
const TEST_POLICY = '1.3.6.1.4.1.99999.1'

const cn = (name: string) =>
  new pkijs.AttributeTypeAndValue({
    type: '2.5.4.3',
    value: new asn1js.Utf8String({ value: name }),
  })

async function tsaIdentity() {
  const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])
  const cert = new pkijs.Certificate()
  cert.version = 2
  cert.serialNumber = new asn1js.Integer({ value: 1 })
  cert.issuer.typesAndValues.push(cn('carrier-verify test TSA'))
  cert.subject.typesAndValues.push(cn('carrier-verify test TSA'))
  cert.notBefore.value = new Date('2020-01-01T00:00:00Z')
  cert.notAfter.value = new Date('2040-01-01T00:00:00Z')
  await cert.subjectPublicKeyInfo.importKey(keys.publicKey)
  await cert.sign(keys.privateKey, 'SHA-256')
  return { cert, privateKey: keys.privateKey }
}

export type TsaMode = 'good' | 'wrong-imprint' | 'refuse' | 'text'

export async function startTsa() {
  const id = await tsaIdentity()
  let mode: TsaMode = 'good'
  let serial = 0
  const requests: Buffer[] = []

  async function answer(body: Buffer): Promise<Buffer> {
    const req = new pkijs.TimeStampReq({ schema: asn1js.fromBER(new Uint8Array(body)).result })
    if (mode === 'refuse')
      return Buffer.from(
        new pkijs.TimeStampResp({ status: new pkijs.PKIStatusInfo({ status: 2 }) })
          .toSchema()
          .toBER(),
      )
    const imprint =
      mode === 'wrong-imprint'
        ? new pkijs.MessageImprint({
            hashAlgorithm: req.messageImprint.hashAlgorithm,
            hashedMessage: new asn1js.OctetString({ valueHex: new Uint8Array(32).fill(7) }),
          })
        : req.messageImprint
    const tst = new pkijs.TSTInfo({
      version: 1,
      policy: TEST_POLICY,
      messageImprint: imprint,
      serialNumber: new asn1js.Integer({ value: ++serial }),
      genTime: new Date(),
      ...(req.nonce ? { nonce: req.nonce } : {}),
    })
    const signed = new pkijs.SignedData({
      version: 3,
      encapContentInfo: new pkijs.EncapsulatedContentInfo({
        eContentType: TST_INFO_OID,
        eContent: new asn1js.OctetString({ valueHex: tst.toSchema().toBER() }),
      }),
      signerInfos: [
        new pkijs.SignerInfo({
          version: 1,
          sid: new pkijs.IssuerAndSerialNumber({
            issuer: id.cert.issuer,
            serialNumber: id.cert.serialNumber,
          }),
        }),
      ],
      certificates: [id.cert],
    })
    await signed.sign(id.privateKey, 0, 'SHA-256')
    const token = new pkijs.ContentInfo({
      contentType: SIGNED_DATA_OID,
      content: signed.toSchema(true),
    })
    return Buffer.from(
      new pkijs.TimeStampResp({
        status: new pkijs.PKIStatusInfo({ status: 0 }),
        timeStampToken: token,
      })
        .toSchema()
        .toBER(),
    )
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      requests.push(body)
      if (mode === 'text' || req.headers['content-type'] !== 'application/timestamp-query') {
        res.writeHead(mode === 'text' ? 200 : 415, { 'content-type': 'text/plain' })
        res.end('not a time-stamp reply')
        return
      }
      answer(body).then(
        (der) => {
          res.writeHead(200, { 'content-type': 'application/timestamp-reply' })
          res.end(der)
        },
        () => {
          res.writeHead(400, { 'content-type': 'text/plain' })
          res.end('bad request')
        },
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/tsa`,
    requests,
    /** the TSA's certificate, PEM */
    certificatePem: () =>
      `-----BEGIN CERTIFICATE-----\n${Buffer.from(id.cert.toSchema().toBER()).toString('base64')}\n-----END CERTIFICATE-----\n`,
    setMode(m: TsaMode) {
      mode = m
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
