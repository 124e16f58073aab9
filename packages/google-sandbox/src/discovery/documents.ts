import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Google's own Discovery documents (discovery/*.json in this package) are the sandbox's source of truth:
 * which methods exist, at which paths, which query parameters and body fields they take, which scopes they
 * accept, and what their responses look like. Nothing about Google's API surface is restated by hand.
 */

export interface DiscoverySchema {
  id?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'any';
  $ref?: string;
  format?: string;
  enum?: string[];
  properties?: Record<string, DiscoverySchema>;
  additionalProperties?: DiscoverySchema;
  items?: DiscoverySchema;
  readOnly?: boolean;
}

export interface DiscoveryParameter extends DiscoverySchema {
  location: 'query' | 'path';
  required?: boolean;
  repeated?: boolean;
  default?: string;
  minimum?: string;
  maximum?: string;
}

export interface DiscoveryMethod {
  id: string;
  httpMethod: string;
  path: string;
  parameters?: Record<string, DiscoveryParameter>;
  parameterOrder?: string[];
  request?: { $ref: string; parameterName?: string };
  response?: { $ref: string };
  scopes?: string[];
  mediaUpload?: { protocols: { simple?: { path: string } } };
}

interface DiscoveryResource {
  methods?: Record<string, DiscoveryMethod>;
  resources?: Record<string, DiscoveryResource>;
}

export interface DiscoveryDocument {
  id: string;
  name: string;
  version: string;
  revision: string;
  rootUrl: string;
  servicePath: string;
  parameters: Record<string, DiscoveryParameter>;
  schemas: Record<string, DiscoverySchema>;
  resources: Record<string, DiscoveryResource>;
}

export const DISCOVERY_FILES = ['calendar-v3.json', 'gmail-v1.json'] as const;

/**
 * The package's discovery/ folder: this module is src/discovery/documents.ts (tests) or dist/discovery/documents.js
 * (the built package), two levels below the package root either way.
 */
export function findDiscoveryDir(from = __dirname): string {
  const dir = join(from, '..', '..', 'discovery');
  if (!existsSync(join(dir, DISCOVERY_FILES[0]))) throw new Error(`discovery/ (Google Discovery documents) not found at ${dir}`);
  return dir;
}

let cached: DiscoveryDocument[] | undefined;

/** Parsed once per process: the documents are read-only, and every sandbox instance shares them. */
export function loadDiscoveryDocuments(dir = findDiscoveryDir()): DiscoveryDocument[] {
  cached ??= DISCOVERY_FILES.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as DiscoveryDocument);
  return cached;
}

export function allMethods(doc: DiscoveryDocument): DiscoveryMethod[] {
  const out: DiscoveryMethod[] = [];
  const walk = (resources: Record<string, DiscoveryResource> | undefined) => {
    for (const resource of Object.values(resources ?? {})) {
      out.push(...Object.values(resource.methods ?? {}));
      walk(resource.resources);
    }
  };
  walk(doc.resources);
  return out;
}
