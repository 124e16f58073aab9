import express, { type Express } from 'express';
import { assetsRoute } from './assets';
import type { ConsoleDeps } from './deps';
import { shellRoute } from './shell';
import { signInJwtRoute } from './sign-in-jwt';
import { signInPageRoute } from './sign-in-page';
import { signInRoute } from './sign-in';
import { signOutRoute } from './sign-out';

/** The sign-in forms are tiny: a sign-in link's token or one admin JWT. */
const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 4 });

/** The admin console's own routes under /admin: signing in and out, its pages' shell, its assets. */
export function mountConsole(app: Express, deps: ConsoleDeps): void {
  app.get('/admin/sign-in', signInPageRoute(deps));
  app.post('/admin/sign-in', form, signInRoute(deps));
  app.post('/admin/sign-in/jwt', form, signInJwtRoute(deps));
  app.post('/admin/sign-out', signOutRoute(deps));
  app.get('/admin/assets/*path', assetsRoute(deps.assets));
  const shell = shellRoute(deps);
  for (const path of ['/admin', '/admin/', '/admin/customers/:customer_id', '/admin/activity', '/admin/policies', '/admin/overview']) app.get(path, shell);
}
