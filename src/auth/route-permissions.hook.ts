import { accessOf, keyOpensSessionRoute } from '../platform/http/error-catalogue.js';
import type { Http } from '../platform/http/types.js';
import { defaultRouteScope, type KeyScope } from './key-scopes.js';
import { PERMISSIONS, type Permission, rolesWith } from './roles.js';

/** A panel route's need: a permission of the session user's role, or none at all (login, links from e-mail). */
export type RoutePermission = Permission | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What a panel route needs (roles.ts); every route tagged `panel` declares one. */
    permission?: RoutePermission;
  }
}

/**
 * Makes every panel route declare its permission beside its definition: registering one without fails at
 * startup, and the API document names each route's permission (`x-permission`) and the roles that have it.
 */
export function requireDeclaredPermissions(app: Http): void {
  app.addHook('onRoute', (route) => {
    const tags = (route.schema as { tags?: string[] } | undefined)?.tags ?? [];
    // a route that opens charges or cashouts answers the account's standing refusals: its catalogue says so
    if (route.config?.moves) {
      route.config.errors = [...(route.config.errors ?? []), 'ACCOUNT_NOT_ACTIVE', 'ACCOUNT_SUSPENDED'];
    }
    if (isKeyRoute(route.url, route.schema)) {
      noteKeyScope(app, route);
      // every route a key opens answers the key's own refusals: its allow-list and its limits
      route.config = {
        ...route.config,
        errors: [...(route.config?.errors ?? []), 'UNAUTHORIZED', 'IP_NOT_ALLOWED', 'RATE_LIMITED'],
      };
    }
    const permission = route.config?.permission;
    // a route a session opens beside a key (the webhooks, the sandbox's sales) names its permission too
    if (!tags.includes('panel') && permission === undefined) return;
    if (permission === undefined) {
      throw new Error(
        `panel route ${String(route.method)} ${route.url} declares no permission (config.permission)`,
      );
    }
    const roles = permission === 'public' ? [] : rolesWith(permission);
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      // beside what the route's other doors noted (a key route's x-key-scope)
      app.openapiExtras.operations[`${method} ${route.url}`] = {
        ...app.openapiExtras.operations[`${method} ${route.url}`],
        'x-permission': permission,
        'x-roles': roles,
      };
    }
    // (a GET's HEAD twin shares its schema object: the note is added once)
    const note = permission === 'public' ? null : `Roles: ${roles.join(', ')} (${PERMISSIONS[permission]}).`;
    if (route.schema && note && !route.schema.description?.includes(note)) {
      route.schema.description = route.schema.description ? `${route.schema.description}\n\n${note}` : note;
    }
  });
}

function isKeyRoute(url: string, schema: unknown): boolean {
  const security = (schema as { security?: Record<string, unknown>[] } | undefined)?.security ?? [];
  return accessOf(url) === 'api-key' || keyOpensSessionRoute(url) || security.some((s) => 'publicKey' in s);
}

/** The API document names the key scope each API-key route needs (`x-key-scope`), as the hook enforces it. */
function noteKeyScope(
  app: Http,
  route: { method: string | string[]; url: string; config?: { keyScope?: KeyScope } },
) {
  for (const method of [route.method].flat()) {
    if (method === 'HEAD') continue;
    const scope = route.config?.keyScope ?? defaultRouteScope(method);
    const key = `${method} ${route.url}`;
    app.openapiExtras.operations[key] = { ...app.openapiExtras.operations[key], 'x-key-scope': scope };
  }
}
