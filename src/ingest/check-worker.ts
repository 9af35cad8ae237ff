/**
 * Worker thread checking tables of a finished build file (check.ts `quickCheckFile` starts it;
 * `runCheckJob` does the work).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { runCheckJob, type CheckJob } from './check.ts'

parentPort?.postMessage(runCheckJob(workerData as CheckJob))
