// The part of autocannon's programmatic API the API bench uses (the package ships no types).
declare module 'autocannon' {
  type Histogram = { average: number; mean: number; p50: number; p90: number; p99: number; max: number }
  export type Result = {
    requests: Histogram & { total: number }
    latency: Histogram
    errors: number
    timeouts: number
    non2xx: number
    '2xx': number
    /** Seconds the run lasted. */
    duration: number
  }
  export type Options = {
    url: string
    connections?: number
    duration?: number
    headers?: Record<string, string>
    pipelining?: number
  }
  export default function autocannon(options: Options): Promise<Result>
}
