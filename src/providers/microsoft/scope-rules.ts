/**
 * Microsoft's ScopeRules (the Hub's permissions as Graph's delegated permissions, and which covers which) live
 * beside the rest of Graph's scope handling in scopes.ts; this is the name the provider registry reads them by,
 * as it reads Google's from src/providers/google/scope-rules.ts.
 */
export { microsoftScopeRules } from './scopes';
