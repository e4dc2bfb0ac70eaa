// Generated from proto/mafia/v1/*.proto by crates/proto/src/browser.rs; do not edit.
// Regenerate: MAFIA_BLESS=1 cargo test -p mafia-proto --test console_codec
// Each field: [number, name, type, message or enum type, repeated, oneof, optional].
export const SCHEMA = {
  "mafia.v1.Accepted": [
    [1, "client_seq", "uint64", null, false, null, false],
    [2, "events", "message", "mafia.v1.Event", true, null, false],
    [3, "state", "message", "mafia.v1.GameState", false, null, false],
    [4, "duplicate", "bool", null, false, null, false],
    [5, "replayed", "bool", null, false, null, false],
  ],
  "mafia.v1.Attach": [
    [1, "game_id", "string", null, false, null, false],
    [2, "last_acked_seq", "uint64", null, false, null, false],
    [3, "omit_state", "bool", null, false, null, false],
  ],
  "mafia.v1.Attached": [
    [1, "state", "message", "mafia.v1.GameState", false, null, false],
  ],
  "mafia.v1.Ballot": [
    [1, "voter", "uint32", null, false, null, false],
    [2, "target", "uint32", null, false, null, true],
  ],
  "mafia.v1.BestMove": [
    [1, "seat", "uint32", null, false, null, false],
    [2, "named", "uint32", null, true, null, false],
  ],
  "mafia.v1.Command": [
    [1, "next_step", "message", "mafia.v1.NoArgs", false, "kind", false],
    [2, "start_speech", "message", "mafia.v1.SeatArg", false, "kind", false],
    [3, "end_speech", "message", "mafia.v1.EndSpeech", false, "kind", false],
    [4, "nominate", "message", "mafia.v1.Nominate", false, "kind", false],
    [5, "withdraw", "message", "mafia.v1.SeatArg", false, "kind", false],
    [6, "foul", "message", "mafia.v1.SeatArg", false, "kind", false],
    [7, "technical_foul", "message", "mafia.v1.SeatArg", false, "kind", false],
    [8, "penalty", "message", "mafia.v1.Penalty", false, "kind", false],
    [9, "yellow_card", "message", "mafia.v1.SeatArg", false, "kind", false],
    [10, "disqualify", "message", "mafia.v1.SeatArg", false, "kind", false],
    [11, "opposite_team_victory", "message", "mafia.v1.SeatArg", false, "kind", false],
    [12, "vote_call", "message", "mafia.v1.Seats", false, "kind", false],
    [13, "vote", "message", "mafia.v1.Vote", false, "kind", false],
    [14, "ballot", "message", "mafia.v1.Ballot", false, "kind", false],
    [15, "lift", "message", "mafia.v1.Seats", false, "kind", false],
    [16, "end_last_words", "message", "mafia.v1.SeatArg", false, "kind", false],
    [17, "shot", "message", "mafia.v1.Shot", false, "kind", false],
    [18, "don_check", "message", "mafia.v1.TargetArg", false, "kind", false],
    [19, "sheriff_check", "message", "mafia.v1.TargetArg", false, "kind", false],
    [20, "beauty_pick", "message", "mafia.v1.TargetArg", false, "kind", false],
    [21, "best_move", "message", "mafia.v1.BestMove", false, "kind", false],
    [22, "undo", "message", "mafia.v1.NoArgs", false, "kind", false],
    [23, "start_shooting", "message", "mafia.v1.NoArgs", false, "kind", false],
  ],
  "mafia.v1.CommandReply": [
    [1, "version", "uint64", null, false, null, false],
    [2, "events_json", "string", null, true, null, false],
  ],
  "mafia.v1.CommandRequest": [
    [1, "tournament", "string", null, false, null, false],
    [2, "command_json", "string", null, false, null, false],
  ],
  "mafia.v1.CreateTournamentRequest": [
    [1, "spec_json", "string", null, false, null, false],
  ],
  "mafia.v1.Credential": [
    [1, "id", "string", null, false, null, false],
    [2, "tournament", "string", null, false, null, false],
    [3, "role", "string", null, false, null, false],
    [4, "name", "string", null, false, null, false],
    [5, "scopes", "string", null, true, null, false],
    [6, "issued_by", "string", null, false, null, false],
    [7, "issued_at_ms", "int64", null, false, null, false],
    [8, "revoked_at_ms", "int64", null, false, null, false],
    [9, "revoked_by", "string", null, false, null, false],
  ],
  "mafia.v1.CredentialList": [
    [1, "credentials", "message", "mafia.v1.Credential", true, null, false],
  ],
  "mafia.v1.DealCards": [
    [1, "roles", "string", null, true, null, false],
  ],
  "mafia.v1.DrawnDeal": [
    [1, "commitment", "string", null, false, null, false],
  ],
  "mafia.v1.EndSpeech": [
    [1, "seat", "uint32", null, false, null, false],
    [2, "timeout", "bool", null, false, null, false],
  ],
  "mafia.v1.Event": [
    [1, "seq", "uint64", null, false, null, false],
    [2, "cmd", "uint32", null, false, null, false],
    [3, "at", "int64", null, false, null, false],
    [4, "type", "string", null, false, null, false],
    [5, "json", "string", null, false, null, false],
    [6, "client_seq", "uint64", null, false, null, false],
  ],
  "mafia.v1.ExportReply": [
    [1, "version", "uint64", null, false, null, false],
    [2, "content_type", "string", null, false, null, false],
    [3, "file_name", "string", null, false, null, false],
    [4, "content", "bytes", null, false, null, false],
  ],
  "mafia.v1.ExportRequest": [
    [1, "tournament", "string", null, false, null, false],
    [2, "kind", "enum", "mafia.v1.ExportKind", false, null, false],
    [3, "round", "uint32", null, false, null, false],
    [4, "stage", "string", null, false, null, false],
  ],
  "mafia.v1.GameState": [
    [1, "game_id", "string", null, false, null, false],
    [2, "seq", "uint64", null, false, null, false],
    [3, "last_client_seq", "uint64", null, false, null, false],
    [4, "over", "bool", null, false, null, false],
    [5, "view_json", "string", null, false, null, false],
    [6, "prompt_json", "string", null, false, null, false],
    [7, "winner", "string", null, false, null, false],
  ],
  "mafia.v1.GetGameRequest": [
    [1, "game_id", "string", null, false, null, false],
    [2, "audience", "enum", "mafia.v1.Audience", false, null, false],
  ],
  "mafia.v1.GetGameResponse": [
    [1, "state", "message", "mafia.v1.GameState", false, null, false],
    [2, "events", "message", "mafia.v1.Event", true, null, false],
    [3, "header_json", "string", null, false, null, false],
  ],
  "mafia.v1.IssueCredentialReply": [
    [1, "credential", "message", "mafia.v1.Credential", false, null, false],
    [2, "token", "string", null, false, null, false],
  ],
  "mafia.v1.IssueCredentialRequest": [
    [1, "tournament", "string", null, false, null, false],
    [2, "role", "string", null, false, null, false],
    [3, "name", "string", null, false, null, false],
    [4, "scopes", "string", null, true, null, false],
  ],
  "mafia.v1.JudgeCommand": [
    [1, "attach", "message", "mafia.v1.Attach", false, "kind", false],
    [2, "submit", "message", "mafia.v1.Submit", false, "kind", false],
  ],
  "mafia.v1.ListTournamentsReply": [
    [1, "tournaments", "message", "mafia.v1.TournamentSummary", true, null, false],
  ],
  "mafia.v1.ListTournamentsRequest": [
    [1, "include_archived", "bool", null, false, null, false],
  ],
  "mafia.v1.NoArgs": [
  ],
  "mafia.v1.Nominate": [
    [1, "by", "uint32", null, false, null, false],
    [2, "target", "uint32", null, false, null, false],
  ],
  "mafia.v1.OpenGameRequest": [
    [13, "tournament_id", "string", null, false, null, false],
    [1, "tournament", "string", null, false, null, false],
    [2, "stage", "string", null, false, null, false],
    [3, "round", "uint32", null, false, null, false],
    [4, "table", "uint32", null, false, null, false],
    [5, "game", "uint32", null, false, null, false],
    [6, "judge", "string", null, false, null, false],
    [7, "rules", "string", null, false, null, false],
    [8, "rules_overrides_json", "string", null, false, null, false],
    [9, "seats", "message", "mafia.v1.SeatEntry", true, null, false],
    [10, "cards", "message", "mafia.v1.DealCards", false, "deal", false],
    [11, "seed", "uint64", null, false, "deal", false],
    [14, "drawn", "message", "mafia.v1.DrawnDeal", false, "deal", false],
    [12, "at", "int64", null, false, null, false],
  ],
  "mafia.v1.OpenGameResponse": [
    [1, "game_id", "string", null, false, null, false],
    [2, "created", "bool", null, false, null, false],
    [3, "state", "message", "mafia.v1.GameState", false, null, false],
    [4, "deal_commitment", "string", null, false, null, false],
  ],
  "mafia.v1.OpenRoundReply": [
    [1, "game_ids", "string", null, true, null, false],
    [2, "version", "uint64", null, false, null, false],
  ],
  "mafia.v1.OpenRoundRequest": [
    [1, "tournament", "string", null, false, null, false],
    [2, "stage", "string", null, false, null, false],
    [3, "round", "uint32", null, false, null, false],
    [4, "deal_seed", "uint64", null, false, null, false],
  ],
  "mafia.v1.Penalty": [
    [1, "seat", "uint32", null, false, null, false],
    [2, "kind", "enum", "mafia.v1.PenaltyKind", false, null, false],
  ],
  "mafia.v1.PlanSeatingRequest": [
    [1, "tournament", "string", null, false, null, false],
    [2, "stage", "string", null, false, null, false],
    [3, "round", "uint32", null, false, null, false],
    [4, "seed", "uint64", null, false, null, false],
    [5, "tables_json", "string", null, false, null, false],
  ],
  "mafia.v1.PlayerHistoryReply": [
    [1, "history_json", "string", null, false, null, false],
  ],
  "mafia.v1.PlayerHistoryRequest": [
    [1, "tournament", "string", null, false, null, false],
    [2, "player", "string", null, false, null, false],
  ],
  "mafia.v1.PlayersCsvPreview": [
    [1, "encoding", "string", null, false, null, false],
    [2, "separator", "string", null, false, null, false],
    [3, "rows", "message", "mafia.v1.PlayersCsvRow", true, null, false],
    [4, "errors", "uint32", null, false, null, false],
  ],
  "mafia.v1.PlayersCsvRow": [
    [1, "line", "uint32", null, false, null, false],
    [2, "id", "string", null, false, null, false],
    [3, "nickname", "string", null, false, null, false],
    [4, "club", "string", null, false, null, false],
    [5, "photo_url", "string", null, false, null, false],
    [6, "id_made", "bool", null, false, null, false],
    [7, "error", "string", null, false, null, false],
    [8, "error_ru", "string", null, false, null, false],
  ],
  "mafia.v1.RefereeReply": [
    [1, "attached", "message", "mafia.v1.Attached", false, "kind", false],
    [2, "accepted", "message", "mafia.v1.Accepted", false, "kind", false],
    [3, "rejected", "message", "mafia.v1.Rejected", false, "kind", false],
  ],
  "mafia.v1.RegisterPlayersCsvRequest": [
    [1, "tournament", "string", null, false, null, false],
    [2, "csv", "string", null, false, null, false],
    [3, "csv_bytes", "bytes", null, false, null, false],
  ],
  "mafia.v1.Rejected": [
    [1, "client_seq", "uint64", null, false, null, false],
    [2, "violation", "message", "mafia.v1.Violation", false, null, false],
  ],
  "mafia.v1.RevokeCredentialRequest": [
    [1, "tournament", "string", null, false, null, false],
    [2, "id", "string", null, false, null, false],
  ],
  "mafia.v1.SeatArg": [
    [1, "seat", "uint32", null, false, null, false],
  ],
  "mafia.v1.SeatEntry": [
    [1, "seat", "uint32", null, false, null, false],
    [2, "player_id", "string", null, false, null, false],
    [3, "nickname", "string", null, false, null, false],
  ],
  "mafia.v1.SeatRoundReply": [
    [1, "version", "uint64", null, false, null, false],
    [2, "events_json", "string", null, true, null, false],
    [3, "metrics_json", "string", null, false, null, false],
  ],
  "mafia.v1.SeatRoundRequest": [
    [1, "tournament", "string", null, false, null, false],
    [2, "stage", "string", null, false, null, false],
    [3, "round", "uint32", null, false, null, false],
    [4, "seed", "uint64", null, false, null, false],
    [5, "policies_json", "string", null, false, null, false],
  ],
  "mafia.v1.SeatingPlan": [
    [1, "tables_json", "string", null, false, null, false],
    [2, "metrics_json", "string", null, false, null, false],
    [3, "random_metrics_json", "string", null, false, null, false],
    [4, "problems", "string", null, true, null, false],
  ],
  "mafia.v1.Seats": [
    [1, "seats", "uint32", null, true, null, false],
  ],
  "mafia.v1.Shot": [
    [1, "by", "uint32", null, false, null, false],
    [2, "target", "uint32", null, false, null, true],
  ],
  "mafia.v1.StandingsReply": [
    [1, "version", "uint64", null, false, null, false],
    [2, "standings_json", "string", null, false, null, false],
  ],
  "mafia.v1.Submit": [
    [1, "client_seq", "uint64", null, false, null, false],
    [2, "at", "int64", null, false, null, false],
    [3, "command_json", "string", null, false, "body", false],
    [4, "command", "message", "mafia.v1.Command", false, "body", false],
  ],
  "mafia.v1.TargetArg": [
    [1, "target", "uint32", null, false, null, true],
  ],
  "mafia.v1.TournamentRef": [
    [1, "tournament", "string", null, false, null, false],
  ],
  "mafia.v1.TournamentSummary": [
    [1, "id", "string", null, false, null, false],
    [2, "name", "string", null, false, null, false],
    [3, "rules", "string", null, false, null, false],
    [4, "scheme", "string", null, false, null, false],
    [5, "version", "uint64", null, false, null, false],
    [6, "players", "uint32", null, false, null, false],
    [7, "games", "uint32", null, false, null, false],
    [8, "scored_games", "uint32", null, false, null, false],
    [9, "archived", "bool", null, false, null, false],
  ],
  "mafia.v1.Violation": [
    [1, "code", "string", null, false, null, false],
    [2, "clause", "string", null, false, null, false],
    [3, "message", "string", null, false, null, false],
    [4, "message_ru", "string", null, false, null, false],
  ],
  "mafia.v1.Vote": [
    [1, "nominee", "uint32", null, false, null, false],
    [2, "hands", "uint32", null, true, null, false],
  ],
};
export const ENUMS = {
  "mafia.v1.Audience": { AUDIENCE_UNSPECIFIED: 0, AUDIENCE_PUBLIC: 1, AUDIENCE_BROADCAST: 2, AUDIENCE_JUDGE: 3 },
  "mafia.v1.ExportKind": { EXPORT_KIND_UNSPECIFIED: 0, EXPORT_KIND_STANDINGS_CSV: 1, EXPORT_KIND_STANDINGS_JSON: 2, EXPORT_KIND_GAMES_CSV: 3, EXPORT_KIND_GAMES_JSON: 4, EXPORT_KIND_SEATING_HTML: 5 },
  "mafia.v1.PenaltyKind": { PENALTY_KIND_UNSPECIFIED: 0, PENALTY_KIND_SMALL: 1, PENALTY_KIND_BIG: 2 },
};
