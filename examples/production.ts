import { bearer, McpServer, StreamableHttpTransport } from 'switchboard-mcp';

// Your authorization server: Auth0 shown; for Keycloak the issuer is https://<host>/realms/<realm>
// and the keys are at <issuer>/protocol/openid-connect/certs.
const issuer = process.env.ISSUER ?? 'https://your-tenant.eu.auth0.com/';
const resource = process.env.RESOURCE ?? 'https://mcp.example.com/mcp';

const server = new McpServer({ name: 'production', version: '1.0.0' });
server.registerTool('whoami', { description: 'Who is calling' }, (_args, ctx) => {
  // A token with no sub is a client acting for itself: it has a clientId and no subject.
  const { subject, clientId, scopes } = ctx.session.principal as { subject?: string; clientId?: string; scopes: string[] };
  return `${subject ?? clientId} (${scopes.join(' ')})`;
});
// A token without this scope gets 403 with a step-up challenge naming it.
server.registerTool('purge_cache', { description: 'Purges the cache', scopes: ['cache:admin'] }, () => 'purged');

const http = new StreamableHttpTransport(server, {
  auth: bearer({
    issuer,
    jwksUri: process.env.JWKS_URI ?? `${issuer}.well-known/jwks.json`,
    audience: resource, // RFC 8707: tokens must be minted for this server
    resource,
    scopes: ['mcp:use'],
  }),
});
const { url } = await http.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 8080), health: true });
console.log(`listening on ${url}`);

// Drain on SIGTERM: /readyz turns 503, nothing new is taken, what is under way has 20 s to finish.
process.once('SIGTERM', () => void server.close({ drainMs: 20_000 }).then(() => process.exit(0)));
