// Follows one game's events through the gateway's GraphQL subscription with
// the reference `graphql-ws` client, printing one JSON line per event:
// {"recv_ms": <when it arrived>, "seq": .., "kind": .., "event": {..}}.
// Usage: node follow.mjs WS_URL GAME_ID [TOKEN] [legacy]
// It exits when the game is over (the step "ended" starts), or after 10 minutes.
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const [url, gameId, token] = process.argv.slice(2);

const client = createClient({
  url,
  webSocketImpl: WebSocket,
  connectionParams: token ? { token } : {},
  retryAttempts: 0,
});

const query = `subscription ($gameId: String!) {
  events(gameId: $gameId, after: 0) { seq at kind event }
}`;

const timer = setTimeout(() => { console.error('timed out'); process.exit(2); }, 600_000);

client.subscribe(
  { query, variables: { gameId } },
  {
    next: (msg) => {
      if (msg.errors) {
        console.error(JSON.stringify(msg.errors));
        process.exit(3);
      }
      const e = msg.data.events;
      console.log(JSON.stringify({ recv_ms: Date.now(), seq: e.seq, kind: e.kind, event: e.event }));
      if (e.kind === 'step_started' && e.event.step?.kind === 'ended') {
        clearTimeout(timer);
        client.dispose();
        process.exit(0);
      }
    },
    error: (err) => { console.error(String(err?.message ?? JSON.stringify(err))); process.exit(4); },
    complete: () => { clearTimeout(timer); process.exit(0); },
  },
);
