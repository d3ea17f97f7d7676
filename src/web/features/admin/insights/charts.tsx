// Plain SVG charts for the admin home (no chart library: smaller than any, and loaded only with that page).
// Each chart is drawn for the eye (aria-hidden) and its numbers are a table for screen readers (sr-only).
import { useId } from 'react'

export type ChartSeries = { key: string; label: string; color: string; values: (number | null)[] }

const width = 320
const height = 190
const pad = { top: 10, right: 8, bottom: 22, left: 50 }
const plotW = width - pad.left - pad.right
const plotH = height - pad.top - pad.bottom

const monthNames = ['jan', 'fev', 'mar', 'abr', 'mai', 'jun', 'jul', 'ago', 'set', 'out', 'nov', 'dez']

/** 'YYYY-MM-01' → 'jul/26'. */
export function shortMonth(month: string): string {
  const [year, m] = month.split('-')
  return `${monthNames[Number(m) - 1] ?? m}/${year?.slice(2)}`
}

/** 'YYYY-MM-01' → 'julho de 2026' style (full month for the tables). */
const fullNames = [
  'janeiro',
  'fevereiro',
  'março',
  'abril',
  'maio',
  'junho',
  'julho',
  'agosto',
  'setembro',
  'outubro',
  'novembro',
  'dezembro',
]
export function longMonth(month: string): string {
  const [year, m] = month.split('-')
  return `${fullNames[Number(m) - 1] ?? m} de ${year}`
}

function niceStep(range: number): number {
  const raw = range / 4
  if (raw <= 0) return 1
  const magnitude = 10 ** Math.floor(Math.log10(raw))
  const norm = raw / magnitude
  return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * magnitude
}

function scale(min: number, max: number) {
  const lo = Math.min(0, min)
  const hi = Math.max(0, max, lo + 1)
  const step = niceStep(hi - lo)
  const top = Math.ceil(hi / step) * step
  const bottom = Math.floor(lo / step) * step
  const ticks: number[] = []
  for (let v = bottom; v <= top + step / 2; v += step) ticks.push(Math.round(v * 1e6) / 1e6)
  const y = (v: number) => pad.top + plotH - ((v - bottom) / (top - bottom || 1)) * plotH
  return { y, ticks }
}

type ChartProps = {
  title: string
  months: string[]
  /** Stacked bars: positive values stack up from 0, negative ones down. */
  bars?: ChartSeries[]
  /** Lines drawn over the bars (null = no point). */
  lines?: ChartSeries[]
  /** Axis and table values. */
  format: (value: number) => string
  /** Compact axis labels (defaults to format). */
  axisFormat?: (value: number) => string
}

/** A 12-month chart: stacked bars and/or lines, a legend, and the same numbers as an sr-only table. */
export function MonthlyChart({ title, months, bars = [], lines = [], format, axisFormat = format }: ChartProps) {
  const id = useId()
  const n = months.length
  const band = plotW / Math.max(1, n)
  const stacks = months.map((_, i) => {
    let up = 0
    let down = 0
    for (const s of bars) {
      const v = s.values[i] ?? 0
      if (v >= 0) up += v
      else down += v
    }
    return { up, down }
  })
  const lineValues = lines.flatMap((l) => l.values.filter((v): v is number => v !== null))
  const { y, ticks } = scale(
    Math.min(0, ...stacks.map((s) => s.down), ...lineValues),
    Math.max(0, ...stacks.map((s) => s.up), ...lineValues),
  )
  const x = (i: number) => pad.left + band * i + band / 2
  const labelEvery = n > 6 ? 2 : 1

  return (
    <figure className="flex flex-col gap-2" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`} className="text-sm font-semibold">
        {title}
      </figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        className="h-auto w-full text-muted-foreground"
        aria-hidden="true"
        focusable="false"
      >
        {ticks.map((t) => (
          <g key={t}>
            <line
              x1={pad.left}
              x2={width - pad.right}
              y1={y(t)}
              y2={y(t)}
              stroke="currentColor"
              strokeOpacity={t === 0 ? 0.6 : 0.15}
            />
            <text x={pad.left - 4} y={y(t) + 3} textAnchor="end" fontSize="10" fill="currentColor">
              {axisFormat(t)}
            </text>
          </g>
        ))}
        {months.map((m, i) => {
          let up = 0
          let down = 0
          return (
            <g key={m}>
              {bars.map((s) => {
                const v = s.values[i] ?? 0
                if (v === 0) return null
                const from = v > 0 ? up : down
                const to = from + v
                if (v > 0) up = to
                else down = to
                return (
                  <rect
                    key={s.key}
                    x={x(i) - band * 0.32}
                    width={band * 0.64}
                    y={Math.min(y(from), y(to))}
                    height={Math.max(1, Math.abs(y(from) - y(to)))}
                    fill={s.color}
                  />
                )
              })}
              {i % labelEvery === (n - 1) % labelEvery ? (
                <text x={x(i)} y={height - 6} textAnchor="middle" fontSize="10" fill="currentColor">
                  {shortMonth(m)}
                </text>
              ) : null}
            </g>
          )
        })}
        {lines.map((l) => {
          const points = l.values
            .map((v, i) => (v === null ? null : `${x(i)},${y(v)}`))
            .filter((p): p is string => p !== null)
          return (
            <g key={l.key}>
              <polyline points={points.join(' ')} fill="none" stroke={l.color} strokeWidth="2" />
              {l.values.map((v, i) =>
                v === null ? null : <circle key={months[i]} cx={x(i)} cy={y(v)} r="2.5" fill={l.color} />,
              )}
            </g>
          )
        })}
      </svg>
      <ul className="flex flex-wrap gap-x-4 gap-y-1 text-xs" aria-hidden="true">
        {[...bars, ...lines].map((s) => (
          <li key={s.key} className="flex items-center gap-1.5">
            <span
              className={lines.includes(s) ? 'h-0.5 w-3' : 'size-3 rounded-sm'}
              style={{ backgroundColor: s.color }}
            />
            {s.label}
          </li>
        ))}
      </ul>
      <table className="sr-only">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">Mês</th>
            {[...bars, ...lines].map((s) => (
              <th key={s.key} scope="col">
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {months.map((m, i) => (
            <tr key={m}>
              <th scope="row">{longMonth(m)}</th>
              {[...bars, ...lines].map((s) => {
                const v = s.values[i] ?? null
                return <td key={s.key}>{v === null ? '—' : format(v)}</td>
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  )
}
