import { type DiscoveryDocument, type DiscoveryMethod, allMethods } from './documents';

/** One HTTP route of a Google API, compiled from a Discovery method's path template. */
export interface ApiRoute {
  doc: DiscoveryDocument;
  method: DiscoveryMethod;
  /** True for the media-upload variant (`/upload/...`), which takes the raw message as the body. */
  upload: boolean;
  pattern: RegExp;
  names: string[];
  literals: number;
}

export interface RouteMatch {
  route: ApiRoute;
  params: Record<string, string>;
}

function compile(doc: DiscoveryDocument, method: DiscoveryMethod, template: string, upload: boolean): ApiRoute {
  const names: string[] = [];
  let literals = 0;
  const source = template
    .split('/')
    .map((segment) =>
      segment.replace(/\{(\+?)([^}]+)\}|([^{]+)/g, (_m, plus: string, name: string, literal: string) => {
        if (literal !== undefined) {
          literals++;
          return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        }
        names.push(name);
        return plus ? '(.+)' : '([^/]+)';
      }),
    )
    .join('/');
  return { doc, method, upload, pattern: new RegExp(`^${source}/?$`), names, literals };
}

/** Every method of every document, most specific first (`events/import` before `events/{eventId}`). */
export function buildRoutes(docs: DiscoveryDocument[]): ApiRoute[] {
  const routes: ApiRoute[] = [];
  for (const doc of docs) {
    for (const method of allMethods(doc)) {
      routes.push(compile(doc, method, `/${doc.servicePath}${method.path}`, false));
      const simple = method.mediaUpload?.protocols.simple?.path;
      if (simple) routes.push(compile(doc, method, simple, true));
    }
  }
  return routes.sort((a, b) => b.literals - a.literals);
}

export function matchRoute(routes: ApiRoute[], httpMethod: string, path: string): RouteMatch | 'method-not-allowed' | undefined {
  let pathMatched = false;
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    if (route.method.httpMethod !== httpMethod) {
      pathMatched = true;
      continue;
    }
    const params: Record<string, string> = {};
    try {
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1]!);
      });
    } catch {
      continue; // an undecodable %-escape matches nothing, as on Google's front end
    }
    return { route, params };
  }
  return pathMatched ? 'method-not-allowed' : undefined;
}
