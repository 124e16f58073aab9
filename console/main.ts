import { api } from './api.js';
import { replace } from './dom.js';
import { customerPage } from './pages/customer.js';
import { activityPage } from './pages/activity.js';
import { customersPage } from './pages/customers.js';
import { policiesPage } from './pages/policies.js';
import { overviewPage } from './pages/overview.js';

/** Which page this is (full page loads, one shell): the server answers every console path with the same shell. */
const principal = document.querySelector<HTMLMetaElement>('meta[name="hub-principal"]')?.content ?? '';
const main = document.getElementById('main')!;
const path = location.pathname.replace(/\/+$/, '') || '/admin';

document.getElementById('sign-out')?.addEventListener('click', async () => {
  await api('POST', '/admin/sign-out');
  location.assign('/admin/sign-in?signed_out=1');
});

const customer = /^\/admin\/customers\/([^/]+)$/.exec(path);
if (customer) void customerPage(main, decodeURIComponent(customer[1]!), principal === 'admin');
else if (path === '/admin') void customersPage(main, principal === 'admin');
else if (path === '/admin/activity') void activityPage(main, principal);
else if (path === '/admin/policies') void policiesPage(main, principal);
else if (path === '/admin/overview') void overviewPage(main, principal);
else replace(main);
