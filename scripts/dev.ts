// `npm run dev`: the API with reload (tsx watch) and the Vite dev server with hot reload, side by side.
import { type ChildProcess, spawn } from 'node:child_process'

const children: ChildProcess[] = [
  spawn('tsx', ['watch', '--clear-screen=false', 'src/server/main.ts'], { stdio: 'inherit' }),
  spawn('vite', [], { stdio: 'inherit' }),
]

function stop(code: number) {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM')
  process.exit(code)
}

for (const child of children) child.on('exit', (code) => stop(code ?? 0))
process.on('SIGINT', () => stop(0))
process.on('SIGTERM', () => stop(0))
