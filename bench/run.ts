// `npm run bench`: performance targets, against a PostgreSQL (BENCH_DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/billing_bench — created, migrated and loaded with the db:seed-load set when
// missing). Prints p50/p95 per admin list page and exits 1 when a p95 is above 50 ms. Not part of `npm test`.
import os from 'node:os'
import pg from 'pg'
import { seedLoadDatabase } from '../scripts/db-seed-load'
import { connectPostgres } from '../src/server/db/client'
import { adminHomeBenchmarks, adminHomeTargetMs } from './admin-home.bench'
import { listBenchmarks, listTargetMs } from './list-payments.bench'
import { loadBenchmark, loadTargetRows, reportLoad } from './load.bench'
import { pixPayloadBenchmark } from './pix-payload.bench'
import { printTable, type Timing } from './stats'
import { apiBenchmark, startBenchmark } from './api.bench'
import { billingPassesBenchmark } from './billing-passes.bench'
import { printTargets, type TargetRow } from './targets'
import { webBenchmark } from './web.bench'

// The bench's own setting, outside the app's configuration (src/server/config.ts).
const url = process.env.BENCH_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/billing_bench'
const safeUrl = url.replace(/:[^:@/]+@/, ':***@')

/** Every target of the run, gathered into the one table that closes it (each part also prints its own details). */
const summary: TargetRow[] = []

/** The worst p95 of a group of timed cases as one row of the summary. */
function worstP95(figure: string, rows: Timing[], targetMs: number): TargetRow {
  const worst = rows.reduce((a, b) => (b.p95 > a.p95 ? b : a))
  return {
    figure,
    target: `≤ ${targetMs} ms`,
    measured: `${worst.p95.toFixed(1)} ms (${worst.name})`,
    pass: rows.every((r) => r.p95 <= targetMs),
  }
}

function withDatabase(connection: string, name: string): string {
  const u = new URL(connection)
  u.pathname = `/${name}`
  return u.toString()
}

async function ensureDatabase(): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1))
  const admin = new pg.Client({ connectionString: withDatabase(url, 'postgres') })
  await admin.connect()
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [name])
    if (found.rowCount === 0) {
      console.log(`Criando o banco ${name}…`)
      await admin.query(`create database "${name.replaceAll('"', '""')}"`)
    }
  } finally {
    await admin.end()
  }
}

async function main(): Promise<number> {
  console.log(`Banco: ${safeUrl}`)
  await ensureDatabase()
  const database = connectPostgres(url, { max: 4 })
  try {
    await database.migrate()
    const client = await database.pool!.connect()
    let loaded: number
    try {
      const result = await client.query<{ n: number }>(
        "select count(*)::int as n from profiles where email like '%@carga.example.com.br'",
      )
      loaded = result.rows[0]?.n ?? 0
    } finally {
      client.release()
    }
    if (loaded === 0) {
      console.log('Sem a carga de teste: gerando-a (cerca de um a cinco minutos)…')
      const seeded = await seedLoadDatabase(database, { log: (line) => console.log(`  ${line}`) })
      console.log(`  pronta em ${(seeded.ms / 1000).toFixed(1)} s`)
    } else {
      console.log(`Carga presente: ${loaded} clientes.`)
    }

    const loadBefore = os.loadavg()[0] ?? 0
    const lists = await listBenchmarks(database.db)
    printTable(`Listas do admin (alvo: p95 ≤ ${listTargetMs} ms)`, lists, listTargetMs)
    const home = await adminHomeBenchmarks(database.db)
    printTable(`Visão geral do negócio (alvo: p95 ≤ ${adminHomeTargetMs} ms)`, home.results, adminHomeTargetMs)
    printTable('Agregados mensais (sem alvo)', [home.refresh, home.rebuild])
    summary.push(
      worstP95(`admin lists: worst p95 of ${lists.length} cases`, lists, listTargetMs),
      worstP95('admin home: worst p95', home.results, adminHomeTargetMs),
    )
    // Wall-clock timings: other processes on the machine (and on the database server) are part of them.
    const cores = os.cpus().length
    const loadAfter = os.loadavg()[0] ?? 0
    console.log(`Carga média da máquina: ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)} (${cores} núcleos)`)

    const pix = pixPayloadBenchmark()
    console.log(
      `\nBR Code PIX: ${pix.perSecond.toLocaleString('pt-BR')} códigos/s (${pix.microsPerCode.toFixed(1)} µs cada)`,
    )

    // The server half of issue 13: API against a bare node:http + pg server, memory, start, billing passes at scale.
    await database.close()
    const server = [...(await apiBenchmark(url)), await startBenchmark(), ...(await billingPassesBenchmark(url))]
    printTargets('Servidor (API, memória, partida, ciclo de cobrança)', server)
    summary.push(...server)
    const missed = server.filter((r) => r.pass === false)
    if (missed.length > 0) console.error(`\n${missed.length} alvo(s) do servidor não atingido(s).`)

    // The load (bench/load.bench.ts): its own PostgreSQL cluster and server process; BENCH_LOAD=0 skips it.
    let loadBroken: string[] = []
    if (process.env.BENCH_LOAD !== '0') {
      const load = await loadBenchmark()
      loadBroken = reportLoad(load, 'planos, uma entrada, painel, PIX pago pelo PSP, navegação')
      summary.push(...loadTargetRows(load))
    }
    if (loadBroken.length > 0) console.error(`\nCarga fora do alvo: ${loadBroken.join(', ')}`)

    const slow = [...lists, ...home.results].filter((r) => r.p95 > listTargetMs)
    if (slow.length > 0) {
      console.error(
        `\n${slow.length} caso(s) acima de ${listTargetMs} ms no p95: ${slow.map((r) => r.name).join(', ')}`,
      )
    }
    if (slow.length > 0 || loadBroken.length > 0 || missed.length > 0) return 1
    console.log('\nTodos os casos dentro do alvo.')
    return 0
  } finally {
    await database.close().catch(() => {}) // closed already before the server benches
  }
}

process.exitCode = await main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error)
  return 1
})

// The web half: bytes per page and Lighthouse mobile on the built app (bench/web.bench.ts; needs `npm run build`).
const webFailed = await webBenchmark()
  .then((figures) => {
    summary.push(...figures.filter((f) => !f.target.startsWith('(')))
    return figures.some((f) => !f.pass)
  })
  .catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error)
    return true
  })
if (webFailed) process.exitCode = 1

printTargets(`Resumo: todos os alvos (${summary.filter((r) => r.pass === false).length} não atingidos)`, summary)
