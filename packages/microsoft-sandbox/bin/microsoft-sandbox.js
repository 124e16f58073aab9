#!/usr/bin/env node
// The `microsoft-sandbox` command: starts the built sandbox (dist/, from `npm run build`). A plain file rather than
// dist/main.js itself, so that npm links the command at install time, before anything is built.
require('../dist/main.js');
