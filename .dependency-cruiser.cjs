/**
 * The Hub's import rules, checked by `npm run lint:deps` (part of `npm test`) over src/. docs/architecture.md
 * ("Import rules") says why each holds. Type imports count: a type-only edge ties modules together as tightly
 * for a reader and for the type checker as a runtime one, so `tsPreCompilationDeps` is on.
 *
 * Violations known when a rule was written are listed in .dependency-cruiser-known-violations.json
 * (`npm run lint:deps:baseline` writes it); `lint:deps` ignores those and fails on any other.
 */

/** The Hub's own modules (relative imports), as opposed to packages and Node's built-ins. */
const OWN = ['local'];
/** A package, resolved (…node_modules/…) or not (its bare name). */
const pkg = (names) => `(^|/)node_modules/(${names})|^(${names})`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circle, type imports included: every module can be read, tested and replaced after the ones it imports.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'core-imports-only-core',
      severity: 'error',
      comment: 'The vendor-neutral core (ports and domain types) depends on nothing else of the Hub: every other layer depends on it.',
      from: { path: '^src/core/' },
      to: { dependencyTypes: OWN, pathNot: '^src/core/' },
    },
    {
      name: 'google-sdk-only-in-google-provider',
      severity: 'error',
      comment: "Google's client libraries are used only by the Google provider, which implements the core's ports with them.",
      from: { path: '^src/', pathNot: '^src/providers/google/' },
      to: { path: pkg('@googleapis/|google-auth-library(/|$)') },
    },
    {
      name: 'microsoft-sdk-only-in-microsoft-provider',
      severity: 'error',
      comment: "Microsoft's libraries are used only by the Microsoft provider (and by tests, which this check does not read).",
      from: { path: '^src/', pathNot: '^src/providers/microsoft/' },
      to: { path: pkg('@microsoft/|@azure/') },
    },
    {
      name: 'tools-not-http',
      severity: 'error',
      comment: 'Tools are written against the core, not against HTTP: no src/http, src/routes or express in src/tools.',
      from: { path: '^src/tools/' },
      to: { path: ['^src/(http|routes)/', pkg('(@types/)?express(/|$)')] },
    },
    {
      name: 'tools-not-providers',
      severity: 'error',
      comment: 'Tools reach a vendor only through the ports of src/core; which provider serves a call is wired outside them.',
      from: { path: '^src/tools/' },
      to: { path: '^src/providers/' },
    },
    {
      name: 'store-imports-no-feature',
      severity: 'error',
      comment:
        'The store (databases, Redis, sealing) serves every feature and depends on none: it may import the store, the configuration, the core and the logger.',
      from: { path: '^src/store/' },
      to: { dependencyTypes: OWN, pathNot: '^src/(store|config|core)/|^src/logger\\.ts$' },
    },
    {
      name: 'config-imports-no-feature',
      severity: 'error',
      comment: 'Configuration is read once, one file per section, and imports nothing else of the Hub: each feature takes its settings from it.',
      from: { path: '^src/config/' },
      to: { dependencyTypes: OWN, pathNot: '^src/config/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Packages, the workspace's own included (the sandboxes, the client), are used, not read: each has its own boundaries.
    doNotFollow: { path: ['node_modules', '^packages/'] },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
