// The HTTP API's one definition: routes, the shapes they take and answer,
// their limits, and the error codes with their statuses. The server's routes,
// the CLI and the web app all import it; docs/api.md documents it (a test
// checks the two agree). Free of Node and of the DOM, so every side can use it.
export * from './routes.js';
export * from './errors.js';
export * from './sessions.js';
export * from './commands.js';
export * from './workspaces.js';
export * from './health.js';
export * from './upgrades.js';
export * from './layout.js';
export * from './agents.js';
export * from './remote.js';
