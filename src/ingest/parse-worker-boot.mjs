// Worker bootstrap for the TypeScript sources (see worker-module.ts): registers tsx in this thread,
// then runs the worker module named by workerData.entry. Compiled JavaScript does not use it.
import { workerData } from 'node:worker_threads'
import { register } from 'tsx/esm/api'

register()
await import(workerData.entry)
