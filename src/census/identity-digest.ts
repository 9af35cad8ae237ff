/**
 * The digest of a census row's identity and contact fields, computed for each parsed row
 * (row.ts `censusDigest`) and stored in `companies.digest`: the history (identity/) compares two
 * census versions by it in SQL and reads field by field only the rows whose digest changed.
 */

/**
 * The normalised values the digest covers, as `companies` columns in this order: legal name, DBA
 * name, phone (PHONE, or CELL_PHONE when PHONE is empty: the record's phone), cell phone, fax,
 * e-mail, physical street, city, state, ZIP, country, mailing street, city, state, ZIP, country,
 * officer 1, officer 2, STATUS_CODE, MCS-150 date. Adding a value changes every digest: bump the
 * census format.
 */
export const IDENTITY_COLUMNS = `legal_name dba_name phone cell_phone fax email phy_street phy_city
phy_state phy_zip phy_country mail_street mail_city mail_state mail_zip mail_country officer_1
officer_2 status_code mcs150_date`.split(/\s+/)

/**
 * A 53-bit hash (two 32-bit multiply-xorshift lanes, "cyrb53") of the values (`values`, or
 * `values` at the positions `at`: the row parser passes a whole `companies` row) with a separator
 * and a distinct mark for null, so `null` and `''` and shifted values differ. A safe integer:
 * SQLite stores it as an INTEGER. A collision would hide one change of one company; at 2^-53 per
 * changed row it is not a practical concern.
 */
export function identityDigest(
  values: readonly (string | number | null)[],
  at?: readonly number[],
): number {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  const n = at ? at.length : values.length
  for (let k = 0; k < n; k++) {
    const v = values[at ? (at[k] as number) : k] as string | null
    if (v === null) {
      h1 = Math.imul(h1 ^ 0x00, 2654435761)
      h2 = Math.imul(h2 ^ 0x01, 1597334677)
    } else {
      for (let i = 0; i < v.length; i++) {
        const c = v.charCodeAt(i)
        h1 = Math.imul(h1 ^ c, 2654435761)
        h2 = Math.imul(h2 ^ c, 1597334677)
      }
    }
    // the separator
    h1 = Math.imul(h1 ^ 0x1f, 2654435761)
    h2 = Math.imul(h2 ^ 0x1f, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507)
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507)
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}
