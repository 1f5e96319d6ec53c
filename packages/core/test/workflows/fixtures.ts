/** The example workflow, in JSONata (`$count(checks)` for the list's length). */
export const RELEASE_NOTES = `---
name: release-notes
description: Draft release notes from the git history
inputs:
  since: { description: "tag or commit to start from", default: "HEAD~20" }
output: notes
durability:
  retry: { maxAttempts: 3, backoffMs: 10, backoffMultiplier: 2 }
  maxDurationMs: 600000
steps:
  - call: planner
    weight: 20
    input: { since: "\${input.since}" }
    store: plan
  - parallel:
      - { call: writer, input: { part: features, plan: "\${plan}" }, store: features }
      - { call: writer, input: { part: fixes, plan: "\${plan}" }, store: fixes }
    weight: 40
  - loop: { over: "\${plan.items}", as: item }
    steps:
      - { call: checker, input: { item: "\${item}" }, store: "checks[]" }
    weight: 25
  - conditional: "\${$count(checks) > 0}"
    then: [ { call: fixer, input: { checks: "\${checks}" }, store: fixes } ]
    else: []
    weight: 5
  - transform: "features & '\\n\\n' & fixes"
    store: notes
    weight: 10
---
# Release notes

Plans, writes in parallel, checks each item, fixes, assembles.
`;
