// Loaded only with workflows.backend "dbos" (a dynamic import): DBOS and pg stay off start-up.
export { DbosBackend, openDbosBackend, type DbosBackendOptions, type WorkflowLimits } from './backend.js';
export { databaseProblem, describeDatabase, prepareDatabase } from './database.js';
export { startDbosSerially } from './start-lock.js';
