import { DatabaseSync } from 'node:sqlite';
import path from 'node:path';
import { query } from '@beans/core';

// The program keeps the agent's memory in its own database instead of .beans/memory.md.
const db = new DatabaseSync(path.join(process.argv[2], '..', 'app.db'));
db.exec('CREATE TABLE IF NOT EXISTS facts (id INTEGER PRIMARY KEY, fact TEXT UNIQUE)');
const memory = {
  list: async () => db.prepare('SELECT fact FROM facts ORDER BY id').all().map((row) => row.fact),
  add: async (fact) => ({ added: db.prepare('INSERT OR IGNORE INTO facts (fact) VALUES (?)').run(fact).changes > 0 }),
};

// The first session learns a fact; the second one is told it in its system prompt.
for (const prompt of ['Find out how to run the tests', 'Run the tests']) {
  const run = query({ prompt, options: { cwd: process.argv[2], provider: 'ollama', permissionMode: 'bypassPermissions', memory } });
  for await (const message of run) {
    if (message.type === 'result') console.log(`${prompt}: ${message.result}`);
  }
}
console.log(`facts: ${(await memory.list()).join('; ')}`);
