import { removePgliteTemplate } from './pglite-template';

/** Jest global teardown of the tiers with databases (pglite-template.ts). */
export default removePgliteTemplate;
