/** The month's daily usage as an inline SVG bar chart, drawn on the server (no script needed). */
const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

export function daysOf(period: string): string[] {
  const [y, m] = period.split('-').map(Number)
  const n = new Date(Date.UTC(y ?? 1970, m ?? 1, 0)).getUTCDate()
  return Array.from({ length: n }, (_, i) => `${period}-${String(i + 1).padStart(2, '0')}`)
}

/** One bar per day of `period`; `daily` lists the days with calls. */
export function dailyChartSvg(
  period: string,
  daily: readonly { day: string; used: number }[],
): string {
  const byDay = new Map(daily.map((d) => [d.day, d.used]))
  const days = daysOf(period)
  const max = Math.max(1, ...days.map((d) => byDay.get(d) ?? 0))
  const W = 720
  const H = 200
  const left = 48
  const bottom = 24
  const top = 12
  const slot = (W - left - 8) / days.length
  const plotH = H - bottom - top
  const total = days.reduce((s, d) => s + (byDay.get(d) ?? 0), 0)
  const bars = days
    .map((d, i) => {
      const v = byDay.get(d) ?? 0
      const h = Math.round((v / max) * plotH)
      const x = left + i * slot + 1
      return `<rect x="${x.toFixed(1)}" y="${top + plotH - h}" width="${Math.max(1, slot - 2).toFixed(1)}" height="${h}" fill="#0b5cad"><title>${esc(d)}: ${v} calls</title></rect>`
    })
    .join('')
  const labels = days
    .map((d, i) =>
      i === 0 || (i + 1) % 5 === 0
        ? `<text x="${(left + i * slot + slot / 2).toFixed(1)}" y="${H - 6}" font-size="11" text-anchor="middle" fill="#4a5563">${Number(d.slice(8))}</text>`
        : '',
    )
    .join('')
  return `<svg class="chart" role="img" aria-labelledby="chart-title" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg"><title id="chart-title">Billed calls per day in ${esc(period)}: ${total} in total, at most ${max === 1 && total === 0 ? 0 : max} on one day</title><line x1="${left}" y1="${top + plotH}" x2="${W - 8}" y2="${top + plotH}" stroke="#6b7785"/><text x="${left - 6}" y="${top + 10}" font-size="11" text-anchor="end" fill="#4a5563">${max}</text><text x="${left - 6}" y="${top + plotH}" font-size="11" text-anchor="end" fill="#4a5563">0</text>${bars}${labels}</svg>`
}
