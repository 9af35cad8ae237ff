// Worker bootstrap: registers tsx's loader in this thread, then runs the TypeScript worker.
import { workerData } from 'node:worker_threads'
import { register } from 'tsx/esm/api'

register()
await import(workerData.entry)
