// A real OpenID provider for the dashboard's sign-in tests: the `oidc-provider` package
// (pinned in package.json) on 127.0.0.1, with one confidential client and its
// development login and consent pages (devInteractions), which any login name passes.
// The subject (`sub`) of the ID token is the login name typed there, so that a test signs
// in as a linked or an unlinked identity as it chooses.
//
// Usage: node tests/oidc/provider.mjs --port PORT --client-id ID --client-secret SECRET
//          --redirect-uri URI
// (PORT 0 picks a free one). Prints {"issuer": "http://127.0.0.1:PORT"} as one JSON line
// once it listens; stops when its standard input closes or on SIGTERM.

import Provider from 'oidc-provider';
import { parseArgs } from 'node:util';
import { createServer } from 'node:http';

// Standard output carries the ready line only (the test may stop reading it); the
// package's notices go to standard error.
console.log = console.info = console.warn = (...args) => console.error(...args);

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    'redirect-uri': { type: 'string' },
  },
});
for (const name of ['client-id', 'client-secret', 'redirect-uri']) {
  if (!values[name]) {
    console.error(`provider.mjs: --${name} is required`);
    process.exit(2);
  }
}

// Listen first: the issuer names the port.
const server = createServer();
await new Promise((resolve) => server.listen(Number(values.port), '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: values['client-id'],
      client_secret: values['client-secret'],
      redirect_uris: [values['redirect-uri']],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  async findAccount(ctx, id) {
    return { accountId: id, async claims() { return { sub: id }; } };
  },
  features: { devInteractions: { enabled: true } },
  cookies: { keys: ['provider.mjs cookie key, for tests only'] },
});
// Quiet about its development defaults (keys, interactions): this is a test fixture.
provider.on('server_error', (ctx, err) => console.error('provider error:', err));

server.on('request', provider.callback());
process.stdout.write(`${JSON.stringify({ issuer })}\n`);

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
