// Follows a tournament's standings through the gateway's GraphQL
// subscription with the reference `graphql-ws` client, printing one JSON
// line per table: {"version": .., "games": .., "totals": {"p01": 1.4, ..}}.
// Usage: node standings.mjs WS_URL TOURNAMENT [TOKEN]
// It runs until it is killed, or for 10 minutes.
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const [url, tournament, token] = process.argv.slice(2);

const client = createClient({
  url,
  webSocketImpl: WebSocket,
  connectionParams: token ? { token } : {},
  retryAttempts: 0,
});

const query = `subscription ($t: String!) {
  standings(tournament: $t) { version games rows { player games points { total } } }
}`;

setTimeout(() => { console.error('timed out'); process.exit(2); }, 600_000);

client.subscribe(
  { query, variables: { t: tournament } },
  {
    next: (msg) => {
      if (msg.errors) {
        console.error(JSON.stringify(msg.errors));
        process.exit(3);
      }
      const s = msg.data.standings;
      const totals = Object.fromEntries(s.rows.map((r) => [r.player, r.points.total]));
      console.log(JSON.stringify({ version: s.version, games: s.games, totals }));
    },
    error: (err) => { console.error(String(err?.message ?? JSON.stringify(err))); process.exit(4); },
    complete: () => process.exit(0),
  },
);
